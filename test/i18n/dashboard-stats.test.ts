import { sql } from 'kysely'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import { sendWeeklySummaries } from '../../src/domain/stats/weekly-summary.ts'
import { buildTestApp } from '../helpers/app.ts'
import { until } from '../helpers/polling.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { makeTeam } from '../teams/helpers.ts'
import { inEveryLanguage } from './dashboard-helpers.ts'

const smtp = await startSmtpServer()
const { app } = await buildTestApp({
  env: { BASE_URL: 'http://app.platform.test', SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <hello@presence.test>' },
})

describe('the statistics and the weekly mail in German and French', () => {
  it('shows the statistics pages without an English sentence, numbers and words in the page’s language', async () => {
    const team = await makeTeam(app, 'free')
    const site = await createSite(app.db, { name: 'Bäckerei', accountId: team.accountId, status: 'live' })
    const today = new Date().toISOString().slice(0, 10)
    await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values (${site.id}, ${today}::date, 1500, 1200, 3)`.execute(
      app.db,
    )
    await inEveryLanguage(app, team.owner.cookie, '/app/stats')
    const { de, fr } = await inEveryLanguage(app, team.owner.cookie, `/app/sites/${site.id}/stats`)
    expect(de.$('h1').text()).toBe('Statistiken von Bäckerei')
    expect(de.$('.figures dt').first().text()).toBe('Besucher')
    expect(de.$('.figures dd').first().text()).toBe('1.200')
    expect(fr.$('.figures dd').first().text()).toBe('1\u202f200')
    expect(fr.$('#visits-title').text()).toBe('Visiteurs et pages vues par jour, 30 derniers jours')
    const refused = await inEveryLanguage(app, team.owner.cookie, `/app/sites/${site.id}/stats?days=5`, { status: 400 })
    expect(refused.de.$('#days-error').text()).toBe('Fehler: Wählen Sie die letzten 7, 30 oder 90 Tage.')
  })

  it('mails the week to the owner in the language they chose', async () => {
    const team = await makeTeam(app, 'free')
    const site = await createSite(app.db, { name: 'Boulangerie', accountId: team.accountId, status: 'live' })
    await app.db.updateTable('users').set({ language: 'fr' }).where('id', '=', team.owner.userId).execute()
    await app.db.updateTable('accounts').set({ weekly_stats_mail: true }).where('id', '=', team.accountId).execute()
    const now = new Date('2030-03-12T07:30:00Z')
    await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values (${site.id}, ${addDays('2030-03-12', -1)}::date, 3000, 2000, 0)`.execute(
      app.db,
    )
    const deps = { db: app.db, mailer: app.mailer, keyring: app.keyring, log: pino({ level: 'silent' }), baseUrl: app.config.BASE_URL }
    expect(await sendWeeklySummaries(deps, now)).toBeGreaterThanOrEqual(1)
    const [mail] = await until(async () => smtp.to(team.owner.email).length > 0 && smtp.to(team.owner.email), 20_000, 'the summary')
    const text = mailText(mail!)
    expect(text).toContain('Les visiteurs de la semaine de votre site :')
    expect(text).toContain('Boulangerie')
    expect(text).toContain('Pour l’arrêter, décochez la case sur http://app.platform.test/app/stats')
    expect(text).not.toContain('You get this mail')
  })
})
