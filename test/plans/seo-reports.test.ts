import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueDueReports } from '../../src/domain/seo-reports/reports.ts'
import { periodOf, slotOf, type Period } from '../../src/domain/seo-reports/schedule.ts'
import { closedPort, serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { mailText, startSmtpServer, type ReceivedMail } from '../helpers/smtp.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'
import { webCookieNames } from '../../src/domain/accounts/web-sessions.ts'
import { signedIn } from '../dashboard/helpers.ts'
import { owner, type Owner } from './helpers.ts'
import { until } from '../helpers/polling.ts'

// Scheduled SEO reports (DESIGN.md 12) with a fake clock: the hourly pass is called with the
// times of a month, the audits run as jobs against fixture sites on loopback, the owner's mail is
// caught by an SMTP server and seo.report.ready by a Standard Webhooks receiver.
const smtp = await startSmtpServer()
const { app } = await buildTestApp({
  env: {
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    API_URL: 'https://api.platform.test',
    BASE_URL: 'https://app.platform.test',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Web Presence <reports@presence.test>',
  },
})
const sitesDomain = app.config.SITES_DOMAIN
const HOUR = 3_600_000

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function subscribe(who: Owner) {
  const receiver = await startReceiver()
  const res = await app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: who.headers,
    payload: { url: receiver.url, event_types: ['seo.report.ready'] },
  })
  expect(res.statusCode, res.body).toBe(201)
  return { receiver, secret: (res.json() as Json).secret as string }
}

/** Waits until these audits are finished: done with their mail out, or failed. */
async function settled(ids: string[]) {
  if (ids.length === 0) return
  await until(
    async () => {
      const rows = await app.db.selectFrom('site_audits').select(['state', 'mailed_at']).where('id', 'in', ids).execute()
      return rows.every((r) => r.state === 'failed' || (r.state === 'done' && r.mailed_at !== null))
    },
    60_000,
    'reports finished',
  )
}

/** A dashboard session of the person (the cookie the sign-in sets). */
async function cookieFor(email: string): Promise<string> {
  const { cookie } = await signedIn(app, email)
  return cookie.replace(/^wps_session=/, `${webCookieNames(app.config.BASE_URL).session}=`)
}

const scoreOf = (mail: ReceivedMail) => Number(/^Subject: SEO report for .+: (\d+)\/100$/m.exec(mail.data)?.[1])

describe('the schedule', () => {
  it('gives every site its own moment in each period, spread over the whole period and never in its last hour', () => {
    const week = periodOf('weekly', new Date('2030-03-06T12:00:00Z'))
    expect(week).toMatchObject({ key: '2030-W10', start: new Date('2030-03-04T00:00:00Z'), end: new Date('2030-03-11T00:00:00Z') })
    expect(periodOf('weekly', new Date('2027-01-01T00:00:00Z')).key).toBe('2026-W53')
    expect(periodOf('monthly', new Date('2030-03-31T23:59:59Z'))).toMatchObject({
      key: '2030-03',
      start: new Date('2030-03-01T00:00:00Z'),
      end: new Date('2030-04-01T00:00:00Z'),
    })
    const ids = Array.from({ length: 200 }, (_, i) => `site_spread${i}`)
    const quarters = [0, 0, 0, 0]
    for (const id of ids) {
      const slot = slotOf(id, week).getTime()
      expect(slot).toBeGreaterThanOrEqual(week.start.getTime())
      expect(slot).toBeLessThan(week.end.getTime() - HOUR)
      quarters[Math.floor(((slot - week.start.getTime()) / (week.end.getTime() - week.start.getTime())) * 4)]! += 1
      // The same moment of the week every week.
      expect(slotOf(id, periodOf('weekly', new Date(week.end.getTime() + 3 * 24 * HOUR))).getTime() - slot).toBe(7 * 24 * HOUR)
    }
    // Not all at midnight: each quarter of the week has its share (50 expected in each).
    for (const count of quarters) expect(count).toBeGreaterThan(25)
    expect(new Set(ids.map((id) => slotOf(id, week).getTime())).size).toBe(200)
  })
})

describe('scheduled SEO reports', () => {
  it('sends each live site its report once per period of its plan, spread over the period: mail with score, change and quick wins, and seo.report.ready', async () => {
    const defects = await serveFixtureForFile('seo-defects')
    const clean = await serveFixtureForFile('clean')
    const monthly = await serveFixtureForFile('aeo-defects')
    const pro = await owner(app, 'pro-reports@example.com', 'pro')
    const lite = await owner(app, 'lite-reports@example.com', 'lite')
    const free = await owner(app, 'free-reports@example.com', 'free')
    const plus = await owner(app, 'plus-reports@example.com', 'plus')
    const { receiver, secret } = await subscribe(pro)
    const weeklyA = await createSite(app.db, { name: 'Weekly Bakery', hostname: defects.domain, accountId: pro.accountId, status: 'live' })
    const weeklyB = await createSite(app.db, { name: 'Weekly Florist', hostname: clean.domain, accountId: pro.accountId, status: 'live' })
    const draft = await createSite(app.db, { name: 'Not yet', accountId: pro.accountId, status: 'draft' })
    const litePlace = await createSite(app.db, {
      name: 'Monthly Café',
      hostname: monthly.domain,
      accountId: lite.accountId,
      status: 'live',
    })
    const freeSite = await createSite(app.db, { name: 'Free Shop', accountId: free.accountId, status: 'live' })
    const plusSite = await createSite(app.db, { name: 'Plus Shop', accountId: plus.accountId, status: 'live' })

    // The clock walks through March 2030 an hour at a time; each report queued is finished before it moves on.
    const start = new Date('2030-03-01T00:00:00Z').getTime()
    const end = new Date('2030-04-01T00:00:00Z').getTime()
    const queuedAt = new Map<string, number>()
    for (let t = start; t < end; t += HOUR) {
      const queued = await queueDueReports(app.db, sitesDomain, new Date(t))
      for (const audit of queued) queuedAt.set(audit.id, t)
      await settled(queued.map((a) => a.id))
    }
    const audits = await app.db.selectFrom('site_audits').selectAll().orderBy('created_at').execute()
    expect(
      audits.every((a) => a.state === 'done'),
      JSON.stringify(audits.map((a) => [a.domain, a.state, a.error])),
    ).toBe(true)

    // pro: weekly, every week touching March (2030-W09 … W13) once; lite: monthly, once; free, plus, drafts: none.
    const bySite = (siteId: string) => audits.filter((a) => a.site_id === siteId)
    for (const site of [weeklyA, weeklyB])
      expect(bySite(site.id).map((a) => a.period)).toEqual(['2030-W09', '2030-W10', '2030-W11', '2030-W12', '2030-W13'])
    expect(bySite(litePlace.id).map((a) => [a.period, a.trigger])).toEqual([['2030-03', 'monthly']])
    for (const site of [draft, freeSite, plusSite]) expect(bySite(site.id)).toEqual([])

    // Each was queued at the first pass after its site's moment in the period (or at the walk's start for a moment before it).
    for (const audit of audits) {
      const period: Period = periodOf(audit.trigger === 'monthly' ? 'monthly' : 'weekly', new Date(queuedAt.get(audit.id)!))
      expect(period.key).toBe(audit.period)
      const slot = slotOf(audit.site_id, period).getTime()
      const at = queuedAt.get(audit.id)!
      const wait = slot < start ? at - start : at - slot
      expect(wait).toBeGreaterThanOrEqual(0)
      expect(wait).toBeLessThan(HOUR)
    }
    // Spread: the sites' reports go out at different hours, not all at the period's start.
    expect(new Set(audits.filter((a) => a.period !== '2030-W09').map((a) => queuedAt.get(a.id)! % (7 * 24 * HOUR))).size).toBeGreaterThan(1)

    // Walking the month again, or two passes at once, queues nothing more: once per period.
    for (let t = start; t < end; t += 6 * HOUR) expect(await queueDueReports(app.db, sitesDomain, new Date(t))).toEqual([])
    const both = await Promise.all([
      queueDueReports(app.db, sitesDomain, new Date(end - 2 * HOUR)),
      queueDueReports(app.db, sitesDomain, new Date(end - 2 * HOUR)),
    ])
    expect(both.flat()).toEqual([])

    // One mail per report to the owner, with the score the report stored.
    await until(async () => smtp.to(pro.email).length >= 10 && smtp.to(lite.email).length >= 1, 20_000, 'every mail')
    const proMails = smtp.to(pro.email)
    expect(proMails).toHaveLength(10)
    expect(smtp.to(lite.email)).toHaveLength(1)
    expect(smtp.to(free.email)).toHaveLength(0)
    expect(smtp.to(plus.email)).toHaveLength(0)
    const storedScores = (siteId: string) =>
      bySite(siteId)
        .map((a) => a.score)
        .sort()
    expect(
      proMails
        .filter((m) => m.data.includes(defects.domain))
        .map(scoreOf)
        .sort(),
    ).toEqual(storedScores(weeklyA.id))
    expect(
      proMails
        .filter((m) => m.data.includes(clean.domain))
        .map(scoreOf)
        .sort(),
    ).toEqual(storedScores(weeklyB.id))

    const first = mailText(proMails.find((m) => m.data.includes(defects.domain))!)
    const score = bySite(weeklyA.id)[0]!.score
    expect(first).toContain(`Your weekly SEO report for Weekly Bakery (${defects.domain}) is ready.`)
    expect(first).toContain(`Score: ${score}/100. This is the first report of the site.`)
    expect(first).toMatch(/Top quick wins:\n1\. .+\n2\. .+\n3\. .+\n/)
    expect(first).not.toMatch(/\n4\. /)
    expect(first).toContain(`https://app.platform.test/app/sites/${weeklyA.id}/reports`)
    const later = proMails
      .filter((m) => m.data.includes(defects.domain))
      .slice(1)
      .map(mailText)
    for (const text of later)
      expect(text).toMatch(/Unchanged since the last report on \d{4}-\d{2}-\d{2} \(\d+\)\.|(Up|Down) \d+ since the last report/)
    expect(mailText(smtp.to(lite.email)[0]!)).toContain('Your monthly SEO report for Monthly Café')

    // seo.report.ready for every pro report, signed, with the stored score.
    await receiver.waitFor(10, 20_000)
    const events = receiver.requests.map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Json)
    expect(events).toHaveLength(10)
    for (const event of events) {
      const audit = audits.find((a) => a.id === event.data.audit_id)!
      expect(event).toMatchObject({
        type: 'seo.report.ready',
        data: {
          site_id: audit.site_id,
          domain: audit.domain,
          score: audit.score,
          url: `https://api.platform.test/v1/sites/${audit.site_id}/audits/${audit.id}`,
        },
      })
    }

    // GET /v1/sites/{id}/audits lists the reports, newest first; another account's site is 404.
    const listed = await app.inject({ method: 'GET', url: `/v1/sites/${weeklyA.id}/audits?per_page=3`, headers: pro.headers })
    expect(listed.statusCode, listed.body).toBe(200)
    const body = listed.json() as Json
    expect(body.meta).toEqual({ total: 5, page: 1, per_page: 3 })
    expect(body.data.map((a: Json) => a.period)).toEqual(['2030-W13', '2030-W12', '2030-W11'])
    expect(body.data[0]).toEqual({
      id: expect.stringMatching(/^audit_/),
      site_id: weeklyA.id,
      domain: defects.domain,
      state: 'done',
      trigger: 'weekly',
      period: '2030-W13',
      score,
      axes: { seo: expect.any(Number), aeo: expect.any(Number), geo: expect.any(Number) },
      error: null,
      created_at: expect.any(String),
      finished_at: expect.any(String),
    })
    const stranger = await owner(app, 'stranger-reports@example.com', 'pro')
    expect((await app.inject({ method: 'GET', url: `/v1/sites/${weeklyA.id}/audits`, headers: stranger.headers })).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    })
    expect(
      (await app.inject({ method: 'GET', url: `/v1/sites/${weeklyA.id}/audits?per_page=0`, headers: pro.headers })).json(),
    ).toMatchObject({ status: 400, code: 'validation_failed' })

    // The dashboard draws the history as an SVG chart with one point per report, and no script.
    const page = await app.inject({
      method: 'GET',
      url: `/app/sites/${weeklyA.id}/reports`,
      headers: { cookie: await cookieFor(pro.email) },
    })
    expect(page.statusCode).toBe(200)
    expect(page.body).toMatch(/<svg [^>]*role="img"/)
    expect(page.body.match(/<circle /g)).toHaveLength(5)
    expect(page.body).not.toMatch(/<script(?! src="\/app\/copy\.js")/)
    expect(
      (
        await app.inject({
          method: 'GET',
          url: `/app/sites/${weeklyA.id}/reports`,
          headers: { cookie: await cookieFor('stranger-reports@example.com') },
        })
      ).statusCode,
    ).toBe(404)
  }, 300_000)

  it('tries a report again when the site cannot be reached, and never mails a score of a site it could not reach', async () => {
    const fixture = await serveFixtureForFile('clean')
    const [host, port] = fixture.domain.split(':') as [string, string]
    const proxy = await startTcpProxy(host, Number(port))
    const who = await owner(app, 'flaky-reports@example.com', 'pro')
    const { receiver } = await subscribe(who)
    const flaky = await createSite(app.db, { name: 'Flaky', hostname: `127.0.0.1:${proxy.port}`, accountId: who.accountId, status: 'live' })
    const gone = await createSite(app.db, {
      name: 'Gone',
      hostname: `127.0.0.1:${await closedPort()}`,
      accountId: who.accountId,
      status: 'live',
    })
    const week = periodOf('weekly', new Date('2031-06-04T00:00:00Z'))
    const jobOf = async (auditId: string) =>
      app.db
        .selectFrom('jobs')
        .selectAll()
        .where('payload', '@>', JSON.stringify({ audit_id: auditId }) as never)
        .executeTakeFirstOrThrow()
    /** The runner's clock for a retry: the job's delay is over now. */
    const retryNow = async (auditId: string, attempts: number) => {
      // Tries are counted when claimed: wait until the try has failed and the job waits for the next.
      await until(
        async () => {
          const job = await jobOf(auditId)
          return job.attempts >= attempts && job.state === 'queued'
        },
        30_000,
        `try ${attempts} failed`,
      )
      await app.db
        .updateTable('jobs')
        .set({ run_at: new Date() })
        .where('id', '=', (await jobOf(auditId)).id)
        .execute()
      app.jobs.wake()
    }

    proxy.cut()
    // Within the period's last hour every site's moment has passed (a moment may lie in the hour before).
    const queued = await queueDueReports(app.db, sitesDomain, new Date(week.end.getTime() - HOUR / 2))
    const flakyAudit = queued.find((a) => a.site_id === flaky.id)!
    const goneAudit = queued.find((a) => a.site_id === gone.id)!
    await until(
      async () => (await jobOf(flakyAudit.id)).attempts >= 1 && (await jobOf(flakyAudit.id)).state === 'queued',
      30_000,
      'first try failed',
    )
    const job = await jobOf(flakyAudit.id)
    // The next try waits minutes, not seconds: the site may be back by then.
    expect(job.run_at.getTime() - Date.now()).toBeGreaterThan(60_000)
    expect(
      await app.db
        .selectFrom('site_audits')
        .select(['state', 'score', 'mailed_at'])
        .where('id', '=', flakyAudit.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: 'queued', score: null, mailed_at: null })
    expect(smtp.to(who.email)).toHaveLength(0)

    proxy.restore()
    await retryNow(flakyAudit.id, 1)
    await settled([flakyAudit.id])
    const done = await app.db.selectFrom('site_audits').selectAll().where('id', '=', flakyAudit.id).executeTakeFirstOrThrow()
    expect(done.state).toBe('done')
    expect(done.score).toBeGreaterThan(50)
    await until(async () => smtp.to(who.email).length >= 1, 20_000, 'the mail')

    // The site that never answers: four tries, then failed, with its reason; no mail, no event.
    for (let attempt = 1; attempt < 4; attempt++) await retryNow(goneAudit.id, attempt)
    await settled([goneAudit.id])
    const failed = await app.db.selectFrom('site_audits').selectAll().where('id', '=', goneAudit.id).executeTakeFirstOrThrow()
    expect(failed).toMatchObject({
      state: 'failed',
      score: null,
      mailed_at: null,
      error: expect.stringMatching(/^The site could not be reached: /),
    })
    await receiver.waitFor(1, 20_000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(smtp.to(who.email).map(scoreOf)).toEqual([done.score])
    expect(receiver.requests.map((r) => JSON.parse(r.body).data.audit_id)).toEqual([flakyAudit.id])
    await proxy.close()
  }, 180_000)
})
