import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { webCookieNames } from '../../src/domain/accounts/web-sessions.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueSiteAudit } from '../../src/domain/seo-reports/site-audits.ts'
import { periodOf } from '../../src/domain/seo-reports/schedule.ts'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp } from '../helpers/app.ts'
import { until } from '../helpers/polling.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { owner } from '../plans/helpers.ts'
import { sessionCookie } from '../teams/helpers.ts'
import { expectNoEnglish, mailParts } from './helpers.ts'

// The scheduled SEO report in the owner's language: the mail (its audit run as the job it is,
// against a fixture site on loopback, caught by an SMTP server) and the dashboard's reports page.
describe('the SEO report mail and page in German and French', async () => {
  const smtp = await startSmtpServer()
  const { app } = await buildTestApp({
    env: {
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      BASE_URL: 'https://app.platform.test',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Web Presence <reports@presence.test>',
    },
  })

  async function reportOf(email: string, language: 'de' | 'fr', name: string) {
    const fixture = await serveFixtureForFile('clean')
    const who = await owner(app, email, 'pro')
    await app.db.updateTable('users').set({ language }).where('id', '=', who.userId).execute()
    const site = await createSite(app.db, { name, hostname: fixture.domain, accountId: who.accountId, status: 'live' })
    await app.db.transaction().execute((trx) =>
      queueSiteAudit(trx, {
        accountId: who.accountId,
        siteId: site.id,
        domain: fixture.domain,
        trigger: 'weekly',
        period: periodOf('weekly', new Date()).key,
      }),
    )
    const [mail] = await until(async () => smtp.to(email).length > 0 && smtp.to(email), 60_000, 'the report mail')
    return { who, site, domain: fixture.domain, mail: mailParts(mail!) }
  }

  it('mails the weekly report in German, visitors included, and shows the reports page in German', async () => {
    const { who, site, domain, mail } = await reportOf('baeckerei@example.de', 'de', 'Bäckerei')
    expect(mail.subject).toMatch(new RegExp(`^SEO-Bericht für ${domain.replace(/[.]/g, '\\.')}: \\d+/100$`))
    expect(mail.text).toContain(`Ihr wöchentlicher SEO-Bericht für Bäckerei (${domain}) ist fertig.`)
    expect(mail.text).toMatch(/Bewertung: \d+\/100\. Das ist der erste Bericht für diese Website\./)
    expect(mail.text).toContain('- Besucher: 0 (genauso viele wie in der Woche davor)')
    expect(mail.text).toContain('Der vollständige Bericht und der Verlauf Ihrer Bewertungen: https://app.platform.test/app/sites/')
    expectNoEnglish(mail.text, 'mail.report.', 'mail.visits.')

    const page = await app.inject({
      method: 'GET',
      url: `/app/sites/${site.id}/reports`,
      // The session cookie under its name for an https BASE_URL.
      headers: {
        cookie: (await sessionCookie(app, who.userId, who.accountId)).replace(
          /^wps_session=/,
          `${webCookieNames(app.config.BASE_URL).session}=`,
        ),
      },
    })
    expect(page.statusCode).toBe(200)
    const $ = cheerio.load(page.body)
    expect($('h1').text()).toBe('SEO-Berichte für Bäckerei')
    expect($('main').text()).toContain('Ihr Tarif enthält für jede veröffentlichte Website einen wöchentlichen SEO-Bericht per E-Mail.')
    expect($('#history-h').text()).toBe('Verlauf der Bewertung')
    expect($('main table').text()).toContain('Wochenbericht')
    expectNoEnglish($('body').text(), 'reports.')
  }, 120_000)

  it('mails the weekly report in French', async () => {
    const { domain, mail } = await reportOf('boulangerie@example.fr', 'fr', 'Boulangerie')
    expect(mail.subject).toMatch(/^Rapport SEO de .+ : \d+\/100$/)
    expect(mail.text).toContain(`Votre rapport SEO hebdomadaire pour Boulangerie (${domain}) est prêt.`)
    expect(mail.text).toContain('- Visiteurs : 0 (autant que la semaine d’avant)')
    expectNoEnglish(mail.text, 'mail.report.', 'mail.visits.')
  }, 120_000)
})
