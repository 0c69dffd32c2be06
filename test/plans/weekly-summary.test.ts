import { sql } from 'kysely'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import { sendWeeklySummaries } from '../../src/domain/stats/weekly-summary.ts'
import { formToken, post } from '../dashboard/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { makeTeam } from '../teams/helpers.ts'
import { until } from '../helpers/polling.ts'

// The weekly visitor summary (DESIGN.md 18) for plans without SEO reports: the owner asks for it
// on the dashboard's Statistics overview (a plain form), the weekly run mails the week's visitors
// of the account's live sites once per week to an SMTP server, and stops when asked.
const smtp = await startSmtpServer()
const { app } = await buildTestApp({
  env: { BASE_URL: 'http://app.platform.test', SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <hello@presence.test>' },
})
const deps = { db: app.db, mailer: app.mailer, keyring: app.keyring, log: pino({ level: 'silent' }), baseUrl: app.config.BASE_URL }
// A Tuesday: the mail speaks of the seven days to Monday.
const NOW = new Date('2030-03-12T07:30:00Z')
const day = (n: number) => addDays('2030-03-12', -n)

describe('the weekly visitor summary', () => {
  it('is asked for by an owner on a plan without reports, mailed once a week, and stopped', async () => {
    const team = await makeTeam(app, 'free')
    const site = await createSite(app.db, { name: 'Free Bakery', accountId: team.accountId, status: 'live' })
    await createSite(app.db, { name: 'Not yet', accountId: team.accountId, status: 'draft' })
    await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values
      (${site.id}, ${day(1)}::date, 30, 12, 1), (${site.id}, ${day(7)}::date, 10, 4, 0), (${site.id}, ${day(9)}::date, 8, 6, 0)`.execute(
      app.db,
    )

    // Offered to the owner; an editor reads that an owner can ask for it, and is refused the form.
    const owner = await formToken(app, team.owner.cookie, '/app/stats')
    expect(owner.body).toContain('Send me the week by mail')
    const editor = await formToken(app, team.editor.cookie, '/app/sites')
    const overview = await app.inject({ method: 'GET', url: '/app/stats', headers: { cookie: editor.cookie } })
    expect(overview.body).toContain('An owner of the account can ask for it.')
    expect(overview.body).not.toContain('action="/app/stats/weekly-mail"')
    expect((await post(app, '/app/stats/weekly-mail', editor.cookie, { _csrf: editor.token, weekly: 'on' })).statusCode).toBe(403)
    expect((await post(app, '/app/stats/weekly-mail', owner.cookie, { _csrf: owner.token, weekly: 'maybe' })).statusCode).toBe(400)
    expect((await post(app, '/app/stats/weekly-mail', owner.cookie, { weekly: 'on' })).statusCode).toBe(403)
    expect(await sendWeeklySummaries(deps, NOW)).toBe(0)

    const on = await post(app, '/app/stats/weekly-mail', owner.cookie, { _csrf: owner.token, weekly: 'on' })
    expect(on.statusCode).toBe(303)
    expect(on.headers.location).toBe('/app/stats?done=weekly-on')
    const shown = await app.inject({ method: 'GET', url: on.headers.location, headers: { cookie: owner.cookie } })
    expect(shown.body).toContain('The week&#39;s visitors will come by mail every Monday.')
    expect(shown.body).toContain('Stop the weekly mail')

    // Once a week, however often the run goes.
    expect(await sendWeeklySummaries(deps, NOW)).toBe(1)
    expect(await sendWeeklySummaries(deps, new Date(NOW.getTime() + 3_600_000))).toBe(0)
    const [mail] = await until(async () => smtp.to(team.owner.email).length > 0 && smtp.to(team.owner.email), 20_000, 'the summary')
    expect(mail!.data).toMatch(/^Subject: Your visitors last week \(2030-W11\)$/m)
    const text = mailText(mail!)
    expect(text).toContain(
      [
        'Free Bakery',
        `Your visitors from ${day(7)} to ${day(1)} (counted without cookies):`,
        '- Visitors: 16 (up 10 from the week before)',
        '- Page views: 40',
        '- Messages and leads: 1 (up 1 from the week before), 6.3 per hundred visitors',
        `Statistics of your site: http://app.platform.test/app/sites/${site.id}/stats?days=7`,
      ].join('\n'),
    )
    expect(text).not.toContain('Not yet')
    expect(text).toContain('untick the box on http://app.platform.test/app/stats')
    expect(smtp.to(team.editor.email)).toHaveLength(0)

    // Stopped: the next week brings nothing.
    const off = await post(app, '/app/stats/weekly-mail', owner.cookie, { _csrf: owner.token, weekly: 'off' })
    expect(off.headers.location).toBe('/app/stats?done=weekly-off')
    expect(await sendWeeklySummaries(deps, new Date(NOW.getTime() + 7 * 86_400_000))).toBe(0)
    expect(smtp.to(team.owner.email)).toHaveLength(1)
  })

  it('is not for plans whose SEO reports carry the figures', async () => {
    const team = await makeTeam(app, 'pro')
    await createSite(app.db, { name: 'Pro Bakery', accountId: team.accountId, status: 'live' })
    const owner = await formToken(app, team.owner.cookie, '/app/stats')
    expect(owner.body).toContain("Your plan's weekly SEO report of each live site carries its visitors")
    const refused = await post(app, '/app/stats/weekly-mail', owner.cookie, { _csrf: owner.token, weekly: 'on' })
    expect(refused.statusCode).toBe(409)
    expect(refused.body).toContain('already carry the week&#39;s visitors')
    // Asked for on free, then moved to pro: the reports take over.
    await app.db.updateTable('accounts').set({ weekly_stats_mail: true }).where('id', '=', team.accountId).execute()
    expect(await sendWeeklySummaries(deps, NOW)).toBe(0)
    expect(smtp.to(team.owner.email)).toHaveLength(0)
  })
})
