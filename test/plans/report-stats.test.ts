import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueSiteAudit } from '../../src/domain/seo-reports/site-audits.ts'
import { periodOf } from '../../src/domain/seo-reports/schedule.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import { dayOf } from '../../src/domain/stats/tally.ts'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp } from '../helpers/app.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { owner } from './helpers.ts'
import { until } from '../helpers/polling.ts'

// The scheduled SEO report's mail carries the site's visitors beside the score (DESIGN.md 18):
// the audit runs as the job it is, against a fixture site on loopback, and the mail is caught by
// an SMTP server.
const smtp = await startSmtpServer()
const { app } = await buildTestApp({
  env: {
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    BASE_URL: 'https://app.platform.test',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Web Presence <reports@presence.test>',
  },
})

const today = dayOf(Date.now())
const ago = (n: number) => addDays(today, -n)

/** Queues the site's scheduled report of this period and answers the mail it sends. */
async function reportMail(who: { accountId: string; email: string }, siteId: string, domain: string, cadence: 'weekly' | 'monthly') {
  const audit = await app.db.transaction().execute((trx) =>
    queueSiteAudit(trx, {
      accountId: who.accountId,
      siteId,
      domain,
      trigger: cadence,
      period: periodOf(cadence, new Date()).key,
    }),
  )
  expect(audit).toBeDefined()
  const [mail] = await until(async () => smtp.to(who.email).length > 0 && smtp.to(who.email), 60_000, 'the report mail')
  return mailText(mail!)
}

describe('the SEO report mail', () => {
  it('says how many visitors, page views and messages the last week brought, beside the week before', async () => {
    const fixture = await serveFixtureForFile('clean')
    const pro = await owner(app, 'pro-visits@example.com', 'pro')
    const site = await createSite(app.db, { name: 'Weekly Bakery', hostname: fixture.domain, accountId: pro.accountId, status: 'live' })
    // Today is not in the mail (it is not over); the week before is the comparison; older days are in neither.
    await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values
      (${site.id}, ${today}::date, 500, 300, 9),
      (${site.id}, ${ago(1)}::date, 40, 25, 2), (${site.id}, ${ago(7)}::date, 1000, 100, 1),
      (${site.id}, ${ago(8)}::date, 30, 20, 3), (${site.id}, ${ago(14)}::date, 10, 5, 0), (${site.id}, ${ago(15)}::date, 999, 999, 9)`.execute(
      app.db,
    )
    await sql`insert into stats_items (site_id, day, kind, value, pageviews, visitors) values
      (${site.id}, ${ago(1)}::date, 'page', '/menu', 700, 90), (${site.id}, ${ago(2)}::date, 'page', '/', 340, 35),
      (${site.id}, ${today}::date, 'page', '/today', 5000, 300)`.execute(app.db)

    const text = await reportMail(pro, site.id, fixture.domain, 'weekly')
    expect(text).toContain(`Your weekly SEO report for Weekly Bakery (${fixture.domain}) is ready.`)
    expect(text).toMatch(/Score: \d+\/100\./)
    expect(text).toContain(
      [
        `Your visitors from ${ago(7)} to ${ago(1)} (counted without cookies):`,
        '- Visitors: 125 (up 100 from the week before)',
        '- Page views: 1,040',
        '- Messages and leads: 3 (the same as the week before), 2.4 per hundred visitors',
        '- Most viewed page: /menu (700 views)',
        `Statistics of your site: https://app.platform.test/app/sites/${site.id}/stats?days=7`,
      ].join('\n'),
    )
    // The statistics come before the quick wins, after the score.
    expect(text.indexOf('Your visitors')).toBeGreaterThan(text.indexOf('Score:'))
  }, 120_000)

  it('speaks of 30 days in a monthly report, and of no visitors yet without any', async () => {
    const fixture = await serveFixtureForFile('clean')
    const lite = await owner(app, 'lite-visits@example.com', 'lite')
    const site = await createSite(app.db, { name: 'Monthly Café', hostname: fixture.domain, accountId: lite.accountId, status: 'live' })
    const text = await reportMail(lite, site.id, fixture.domain, 'monthly')
    expect(text).toContain(
      [
        `Your visitors from ${ago(30)} to ${ago(1)} (counted without cookies):`,
        '- Visitors: 0 (the same as the 30 days before)',
        '- Page views: 0',
        '- Messages and leads: 0 (the same as the 30 days before)',
        `Statistics of your site: https://app.platform.test/app/sites/${site.id}/stats?days=30`,
      ].join('\n'),
    )
    expect(text).not.toContain('Most viewed page')
  }, 120_000)
})
