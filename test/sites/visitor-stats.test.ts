import { request as httpRequest } from 'node:http'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { FORM_MIN_AGE_MS } from '../../src/sites/form-token.ts'
import { siteStats } from '../../src/domain/stats/report.ts'
import { dayOf, VisitTally } from '../../src/domain/stats/tally.ts'
import { purgeStats } from '../../src/domain/stats/retention.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { PROCESS_TIMEOUT_MS, startServerProcess, waitUntilReady } from '../helpers/process.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import pino from 'pino'

const HOST = 'bakery.example'
const ENV = { BASE_URL: 'http://service.test', API_URL: 'http://api.service.test', TRUST_PROXY: 'true', STATS_FLUSH_INTERVAL_MS: '100' }

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

/** Three visitors: each an address and a user agent. */
const CLIENTS = [
  { address: '198.51.100.7', ua: FIREFOX },
  { address: '203.0.113.45', ua: IPHONE },
  { address: '2001:db8::4711', ua: CHROME },
]

interface Answer {
  status: number
  body: string
}

/** A request over a real connection (answered by the front door before the router). */
function overHttp(base: URL, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject).end()
  })
}

const today = () => dayOf(Date.now())

describe('visitor statistics: counted where published pages are served', () => {
  let t: TestApp
  let site: Site
  let base: URL
  const visit = (client: (typeof CLIENTS)[number], path: string, headers: Record<string, string> = {}, method = 'GET') =>
    overHttp(base, method, path, { host: HOST, 'x-forwarded-for': client.address, 'user-agent': client.ua, ...headers })
  const stats = () => siteStats(t.app.db, site.id, today(), today())

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV })
    const account = await makeAccount(t.app)
    site = await bakerySite(t.app, { accountId: account.accountId, hostname: HOST })
    expect(await buildSite(t.app, site.id)).toMatchObject({ status: 'succeeded' })
    base = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }))
    // The first request of a release loads it (through the router, by a client with no user agent: not counted).
    expect((await t.app.inject({ method: 'GET', url: '/', headers: { host: HOST } })).statusCode).toBe(200)
  }, SETUP_TIMEOUT_MS)

  it('counts 30 page views of 3 clients as 3 visitors and 30 views, per page and device', async () => {
    const paths = ['/', '/about', '/contact']
    for (let i = 0; i < 30; i++) {
      const answer = await visit(CLIENTS[i % 3]!, paths[Math.floor(i / 3) % 3]!)
      expect(answer.status).toBe(200)
    }
    await expect.poll(async () => (await stats()).totals, { timeout: 5000 }).toEqual({ visitors: 3, pageviews: 30, conversions: 0 })
    const counted = await stats()
    expect(counted.days).toEqual([{ date: today(), visitors: 3, pageviews: 30 }])
    expect(counted.pages).toEqual(
      expect.arrayContaining([
        { path: '/', pageviews: 12, visitors: 3 },
        { path: '/about', pageviews: 9, visitors: 3 },
        { path: '/contact', pageviews: 9, visitors: 3 },
      ]),
    )
    expect(counted.devices.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: 'desktop', visitors: 2 },
      { kind: 'mobile', visitors: 1 },
    ])
    const detail = await stats()
    expect(detail.browsers.map((b) => b.name).sort()).toEqual(['Chrome', 'Firefox', 'Safari'])
  })

  it('counts no asset, HEAD, prefetch, bot, 404 or preview', async () => {
    const before = (await stats()).totals
    const client = { address: '192.0.2.99', ua: FIREFOX }
    expect((await visit(client, '/robots.txt')).status).toBe(200)
    expect((await visit(client, '/sitemap.xml')).status).toBe(200)
    expect((await visit(client, '/', {}, 'HEAD')).status).toBe(200)
    expect((await visit(client, '/', { 'sec-purpose': 'prefetch' })).status).toBe(200)
    expect((await visit(client, '/', { 'sec-purpose': 'prefetch;prerender' })).status).toBe(200)
    expect((await visit(client, '/', { purpose: 'prefetch' })).status).toBe(200)
    expect((await visit({ ...client, ua: GOOGLEBOT }, '/')).status).toBe(200)
    expect((await visit({ ...client, ua: '' }, '/')).status).toBe(200)
    expect((await visit(client, '/no-such-page')).status).toBe(404)
    const preview = await overHttp(base, 'GET', `/s/${site.id}/`, {
      host: 'service.test',
      'x-forwarded-for': client.address,
      'user-agent': FIREFOX,
    })
    expect(preview.status).toBe(200)
    // One counted view afterwards shows the flushes ran past all of the above.
    expect((await visit(CLIENTS[0]!, '/about')).status).toBe(200)
    await expect.poll(async () => (await stats()).totals.pageviews, { timeout: 5000 }).toBe(before.pageviews + 1)
    expect((await stats()).totals.visitors).toBe(before.visitors)
  })

  it('keeps referrer hosts (not the site itself) and the UTM source, medium and campaign', async () => {
    const client = { address: '192.0.2.10', ua: CHROME }
    await visit(client, '/?utm_source=Newsletter&utm_medium=email&utm_campaign=spring-bread', {
      referer: 'https://www.google.com/search?q=bakery',
    })
    await visit(client, '/about', { referer: `https://${HOST}/` })
    await visit({ ...client, address: '192.0.2.11' }, '/contact', { referer: 'https://duckduckgo.com/' })
    await expect
      .poll(async () => (await stats()).referrers, { timeout: 5000 })
      .toEqual(
        expect.arrayContaining([
          { host: 'google.com', visitors: 1 },
          { host: 'duckduckgo.com', visitors: 1 },
        ]),
      )
    const counted = await stats()
    expect(counted.referrers.map((r) => r.host)).not.toContain(HOST)
    expect(counted.campaigns).toEqual(
      expect.arrayContaining([
        { kind: 'utm_source', value: 'newsletter', visitors: 1, pageviews: 1 },
        { kind: 'utm_medium', value: 'email', visitors: 1, pageviews: 1 },
        { kind: 'utm_campaign', value: 'spring-bread', visitors: 1, pageviews: 1 },
      ]),
    )
  })

  it('counts the pages answered through the router (injected requests) the same way', async () => {
    const before = (await stats()).totals.pageviews
    const res = await t.app.inject({
      method: 'GET',
      url: '/about',
      remoteAddress: '192.0.2.20',
      headers: { host: HOST, 'user-agent': FIREFOX },
    })
    expect(res.statusCode).toBe(200)
    await expect.poll(async () => (await stats()).totals.pageviews, { timeout: 5000 }).toBe(before + 1)
  })

  it('counts a contact-form message as a conversion', async () => {
    const before = (await stats()).totals.conversions
    const page = await t.app.inject({ method: 'GET', url: '/contact', headers: { host: HOST } })
    const fields = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replaceAll('&amp;', '&')]),
    )
    // A person reads the form before sending it: a post within 2 s of the page is refused (form-token.ts).
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))
    const posted = await t.app.inject({
      method: 'POST',
      url: '/_wps/forms/contact',
      remoteAddress: '192.0.2.30',
      headers: { host: HOST, origin: `https://${HOST}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        ...fields,
        name: 'Ada',
        email: 'ada@example.org',
        message: 'Rye on Saturday?',
        consent: 'yes',
      }).toString(),
    })
    expect(posted.statusCode).toBe(200)
    expect((await stats()).totals.conversions).toBe(before + 1)
  })

  it('stores no client address in any table', async () => {
    await expect.poll(async () => (await stats()).totals.visitors, { timeout: 5000 }).toBeGreaterThanOrEqual(3)
    const { rows: tables } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(
      t.app.db,
    )
    expect(tables.map((r) => r.name)).toContain('stats_seen')
    let dump = ''
    for (const { name } of tables) {
      const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} as t`.execute(t.app.db)
      dump += rows.map((r) => r.row).join('\n')
    }
    expect(dump).toContain(site.id)
    for (const client of CLIENTS) expect(dump).not.toContain(client.address)
    for (const address of ['192.0.2.10', '192.0.2.11', '192.0.2.20', '192.0.2.99']) expect(dump).not.toContain(address)
  })

  /** A tally of its own at noon on `day`, its salt read, and a page view of the bakery by an address in Firefox. */
  const tallyOn = async (day: string, options: { referer?: string; rememberedMax?: number } = {}) => {
    const clock = Date.parse(`${day}T12:00:00Z`)
    const { rememberedMax, referer } = options
    const tally = new VisitTally(t.app.db, { log: pino({ level: 'silent' }), now: () => clock, ...(rememberedMax && { rememberedMax }) })
    await tally.flush()
    const view = (address: string, path: string) =>
      tally.record({ siteId: site.id, host: HOST, path, url: path, address, userAgent: FIREFOX, referer })
    return { tally, view }
  }

  it('keeps the counts of a flush that failed for the next one, each visitor still counted once', async () => {
    const { tally, view } = await tallyOn('2026-04-01', { referer: 'https://duckduckgo.com/' })
    view('198.51.100.70', '/')
    view('198.51.100.70', '/about')
    await sql`create function refuse_stats() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$`.execute(
      t.app.db,
    )
    await sql`create trigger refuse_stats before insert on stats_days for each row execute function refuse_stats()`.execute(t.app.db)
    await tally.flush()
    expect((await siteStats(t.app.db, site.id, '2026-04-01', '2026-04-01')).totals.pageviews).toBe(0)
    // Counted meanwhile: the same visitor again and a second one.
    view('198.51.100.70', '/')
    view('198.51.100.71', '/')
    await sql`drop trigger refuse_stats on stats_days`.execute(t.app.db)
    await sql`drop function refuse_stats()`.execute(t.app.db)
    await tally.flush()
    const day = await siteStats(t.app.db, site.id, '2026-04-01', '2026-04-01')
    expect(day.totals).toEqual({ pageviews: 4, visitors: 2, conversions: 0 })
    expect(day.pages).toEqual([
      { path: '/', pageviews: 3, visitors: 2 },
      { path: '/about', pageviews: 1, visitors: 1 },
    ])
    expect(day.referrers).toEqual([{ host: 'duckduckgo.com', visitors: 2 }])
    expect(day.devices).toEqual([{ kind: 'desktop', visitors: 2 }])
  })

  it('counts a referrer and a campaign once per visitor across flushes in which nobody came by them', async () => {
    const { tally } = await tallyOn('2026-04-03')
    const campaign = '/?utm_source=Radio&utm_campaign=bread-week'
    const view = (address: string, url: string, referer?: string) =>
      tally.record({ siteId: site.id, host: HOST, path: '/', url, address, userAgent: FIREFOX, referer })
    view('198.51.100.90', campaign, 'https://news.example/bakeries')
    await tally.flush()
    // A flush in which only the page was seen: the referrer and the campaign are not kept in memory after it.
    view('198.51.100.90', '/')
    await tally.flush()
    view('198.51.100.90', campaign, 'https://news.example/bakeries')
    view('198.51.100.91', campaign, 'https://news.example/other')
    // The same Referer on another of the site's hosts is the site itself.
    tally.record({
      siteId: site.id,
      host: 'news.example',
      path: '/',
      url: '/',
      address: '198.51.100.92',
      userAgent: FIREFOX,
      referer: 'https://news.example/bakeries',
    })
    await tally.flush()
    const day = await siteStats(t.app.db, site.id, '2026-04-03', '2026-04-03')
    expect(day.totals).toEqual({ pageviews: 5, visitors: 3, conversions: 0 })
    expect(day.referrers).toEqual([{ host: 'news.example', visitors: 2 }])
    expect(day.campaigns).toEqual(
      expect.arrayContaining([
        { kind: 'utm_source', value: 'radio', visitors: 2, pageviews: 3 },
        { kind: 'utm_campaign', value: 'bread-week', visitors: 2, pageviews: 3 },
      ]),
    )
    expect(day.campaigns).toHaveLength(2)
  })

  it('counts a visitor once a day however often the instance forgets whom it has written', async () => {
    // Keeps one visitor in memory: after each flush both written ones are forgotten.
    const { tally, view } = await tallyOn('2026-04-02', { rememberedMax: 1 })
    view('198.51.100.80', '/')
    view('198.51.100.81', '/')
    await tally.flush()
    view('198.51.100.80', '/')
    view('198.51.100.80', '/about')
    await tally.flush()
    view('198.51.100.81', '/about')
    await tally.flush()
    const day = await siteStats(t.app.db, site.id, '2026-04-02', '2026-04-02')
    expect(day.totals).toEqual({ pageviews: 5, visitors: 2, conversions: 0 })
    expect(day.pages).toEqual([
      { path: '/', pageviews: 3, visitors: 2 },
      { path: '/about', pageviews: 2, visitors: 2 },
    ])
    expect(day.devices).toEqual([{ kind: 'desktop', visitors: 2 }])
  })

  it('hashes the same client differently the next day, and forgets the old day’s salt', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z')
    const tally = new VisitTally(t.app.db, { log: pino({ level: 'silent' }), now: () => clock })
    const view = { siteId: site.id, host: HOST, path: '/', url: '/', address: '198.51.100.7', userAgent: FIREFOX, referer: undefined }
    const hashes = async (day: string) =>
      (
        await t.app.db.selectFrom('stats_seen').select('visitor').distinct().where('site_id', '=', site.id).where('day', '=', day).execute()
      ).map((r) => r.visitor)
    await tally.flush()
    tally.record(view)
    tally.record(view)
    await tally.flush()
    const first = await hashes('2026-03-01')
    expect(first).toHaveLength(1)
    expect(await t.app.db.selectFrom('stats_salts').select('day').where('day', '=', '2026-03-01').execute()).toHaveLength(1)

    clock = Date.parse('2026-03-02T12:00:00Z')
    await tally.flush()
    tally.record(view)
    await tally.flush()
    const second = await hashes('2026-03-02')
    expect(second).toHaveLength(1)
    expect(second[0]).not.toBe(first[0])
    // The first day's salt and hashes are gone: nothing links the two days.
    expect(await t.app.db.selectFrom('stats_salts').select('day').where('day', '=', '2026-03-01').execute()).toEqual([])
    expect(await hashes('2026-03-01')).toEqual([])
    const days = await siteStats(t.app.db, site.id, '2026-03-01', '2026-03-02')
    expect(days.days).toEqual([
      { date: '2026-03-01', visitors: 1, pageviews: 2 },
      { date: '2026-03-02', visitors: 1, pageviews: 1 },
    ])
  })

  it('keeps statistics as long as the plan says: 30 days on free, 25 months on pro', async () => {
    const free = await makeAccount(t.app, 'free')
    const small = await bakerySite(t.app, { accountId: free.accountId, pages: [] })
    const put = (siteId: string, day: string) =>
      sql`insert into stats_days (site_id, day, pageviews, visitors) values (${siteId}, ${day}::date, 5, 2)`.execute(t.app.db)
    for (const day of ['2026-01-01', '2026-02-20']) {
      await put(small.id, day)
      await put(site.id, day)
    }
    await put(site.id, '2024-01-01')
    await purgeStats(t.app.db, '2026-03-10')
    const left = await t.app.db
      .selectFrom('stats_days')
      .select(['site_id', sql<string>`day::text`.as('day')])
      .where('day', '<', '2026-03-01')
      .orderBy('site_id')
      .orderBy('day')
      .execute()
    expect(left.filter((r) => r.site_id === small.id).map((r) => r.day)).toEqual(['2026-02-20'])
    expect(left.filter((r) => r.site_id === site.id).map((r) => r.day)).toEqual(['2026-01-01', '2026-02-20'])
  })

  it.skipIf(!onPostgres)('counts two instances on one database into one figure', async () => {
    const other = await buildTestApp({ databaseUrl: t.databaseUrl, env: { ...ENV, JOB_CONCURRENCY: '0' } })
    const otherBase = new URL(await other.app.listen({ port: 0, host: '127.0.0.1' }))
    expect((await other.app.inject({ method: 'GET', url: '/', headers: { host: HOST } })).statusCode).toBe(200)
    const before = (await stats()).totals
    const client = { address: '192.0.2.50', ua: FIREFOX }
    for (let i = 0; i < 5; i++) {
      await visit(client, '/about')
      await overHttp(otherBase, 'GET', '/about', { host: HOST, 'x-forwarded-for': client.address, 'user-agent': client.ua })
    }
    await expect.poll(async () => (await stats()).totals.pageviews, { timeout: 5000 }).toBe(before.pageviews + 10)
    expect((await stats()).totals.visitors).toBe(before.visitors + 1)
  })

  it.skipIf(!onPostgres)(
    'loses at most the flush interval of counts when the process is killed',
    async () => {
      const server = await startServerProcess({ ...ENV, DATABASE_URL: t.databaseUrl, JOB_CONCURRENCY: '0', STATS_FLUSH_INTERVAL_MS: '200' })
      await waitUntilReady(server, 120_000)
      const url = new URL(server.url)
      const before = (await stats()).totals.pageviews
      const client = { address: '192.0.2.60', ua: CHROME }
      // The first request loads the release.
      for (let i = 0; i < 10; i++)
        await overHttp(url, 'GET', '/contact', { host: HOST, 'x-forwarded-for': client.address, 'user-agent': client.ua })
      await new Promise((resolve) => setTimeout(resolve, 700))
      server.child.kill('SIGKILL')
      await server.exited
      expect((await stats()).totals.pageviews).toBe(before + 10)
    },
    PROCESS_TIMEOUT_MS * 2,
  )
})
