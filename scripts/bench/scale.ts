// How cost grows with data: each operation at 1x, 10x and 100x data, all three held in the same
// database at once (in three accounts, sessions or sites), printed as one table. The scales are
// measured in turn, one sample of each per round, so a busy moment of a shared machine falls on
// all of them alike. Reads are timed one request at a time over HTTP (median of BENCH_SAMPLES, with
// the service's CPU per request); builds and fan-outs by their own durations. Indexed reads must
// stay within 1.5x of their 1x cost at 100x; builds and fan-outs may grow at most linearly (their
// cost per page or per endpoint at most 1.0x that of the smallest).
//   GET /v1/sites page 1 (20 a page) and page 50 (2 a page, so it exists at 1x): 100 -> 10,000 sites
//   GET /v1/audit-log page 1: 10^4 -> 10^6 records spread over 90 days
//   GET /v1/sites/{id}/stats of the last day: 1 -> 100 days of statistics kept (a site with 100,000
//     page views a day, stats-data.ts); within 1.2x
//   GET /v1/media page 1 (20 a page): 100 -> 10,000 items in the media library; within 1.2x
//   POST /api/agent/chat in a session holding 2 -> 200 messages
//   a build of 50 and 500 pages
//   one event fanned out to 1, 10 and 100 endpoints, commit to the last delivery recorded
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { sql } from 'kysely'
import pino from 'pino'
import { Agent, request } from 'undici'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { queueBuild } from '../../src/domain/sites/builds.ts'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { createKeyring, newId } from '../../src/infra/crypto.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { addBakeryPages } from './hosted.ts'
import { cpuMicros, startService } from './lib.ts'
import { fillBusyDays } from './stats-data.ts'

const samples = Number(process.env.BENCH_SAMPLES ?? 200)
const turnSessions = Number(process.env.BENCH_TURN_SESSIONS ?? 40)
const DAY = 86_400_000

const dataKey = randomBytes(32)
// Webhooks reach the loopback receiver only outside production (OUTBOUND_ALLOW_PRIVATE_NETWORKS).
const service = await startService({
  NODE_ENV: 'development',
  DATA_ENCRYPTION_KEY: dataKey.toString('base64'),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  JOB_CONCURRENCY: '16',
})
const store = await openDataStore({ databaseUrl: service.databaseUrl, dataDir: tmpdir(), log: pino({ level: 'silent' }) })
const { db } = store
const keyring = createKeyring(dataKey)
const agent = new Agent({ connections: 1 })

/** Wall time in ms of each sample, and the service's CPU over them in µs. */
class Samples {
  readonly ms: number[] = []
  cpu = 0

  async take(once: () => Promise<void>, withCpu = true): Promise<void> {
    const cpuBefore = withCpu ? (cpuMicros(service.pid) ?? 0) : 0
    const started = performance.now()
    await once()
    this.ms.push(performance.now() - started)
    if (withCpu) this.cpu += (cpuMicros(service.pid) ?? 0) - cpuBefore
  }

  get median(): number {
    const sorted = [...this.ms].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)]!
  }

  get cpuPerSample(): number {
    return this.cpu / this.ms.length
  }
}

async function call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<string> {
  const res = await request(`${service.url}${path}`, { method: method as 'GET', headers, body, dispatcher: agent })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`)
  return text
}

/** Waits until the data just written is planned for as it would be after autovacuum. */
async function settle(...tables: string[]): Promise<void> {
  for (const table of tables) await sql`vacuum analyze ${sql.table(table)}`.execute(db)
}

const stamp = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`

// --- accounts ---------------------------------------------------------------------------------

async function account(plan = 'max'): Promise<{ id: string; headers: Record<string, string> }> {
  const id = newId('acct')
  await db
    .insertInto('accounts')
    .values({ id, plan: plan as 'max', quota_override: 1_000_000_000 })
    .execute()
  const { secret } = await createApiToken(db, { accountId: id, name: 'scale', scopes: ['read:sites', 'write:pages', 'manage:tokens'] })
  return { id, headers: { authorization: `Bearer ${secret}` } }
}

// --- sites ------------------------------------------------------------------------------------

/** An account with `total` sites created a second apart, every tenth with an active own domain. */
async function accountWithSites(total: number) {
  const owner = await account()
  const s = stamp()
  await sql`insert into sites (id, account_id, name, slug, status, created_at, updated_at)
    select 'site_' || ${s} || g, ${owner.id}, 'Scale site ' || g, 's' || ${s} || '-' || g, 'draft', now() - make_interval(secs => ${total} - g), now()
    from generate_series(1, ${total}::int) g`.execute(db)
  await sql`insert into domains (id, site_id, hostname, status, "primary", verification_value, verified_at)
    select 'dom_' || ${s} || g, 'site_' || ${s} || g, 'www.' || ${s} || '-' || g || '.example', 'active', true, 'v', now()
    from generate_series(1, ${total}::int) g where g % 10 = 0`.execute(db)
  return owner
}

// --- audit log --------------------------------------------------------------------------------

/** An account with `total` audit records spread evenly over the last 90 days. */
async function accountWithAuditLog(total: number) {
  const owner = await account()
  const s = stamp()
  const operations = ['sites.list', 'sites.get', 'pages.update', 'blocks.update', 'builds.create', 'leads.list']
  for (let start = 0; start < total; start += 200_000) {
    const end = Math.min(total, start + 200_000)
    await sql`insert into audit_log (id, at, account_id, token_id, client_id, operation, method, path, status, request_id, ip)
      select 'aud_' || ${s} || g, now() - make_interval(secs => (g::float8 / ${total}) * ${(90 * DAY) / 1000}), ${owner.id}, 'tok_scale' || (g % 3), null,
        (${operations}::text[])[1 + g % ${operations.length}], 'GET', '/v1/sites', 200, 'req' || g, '127.0.0.1'
      from generate_series(${start + 1}::int, ${end}::int) g`.execute(db)
  }
  return owner
}

// --- visitor statistics ---------------------------------------------------------------------

/** A site of `owner` with `days` days of a busy site's statistics up to `today`. */
async function siteWithStats(ownerId: string, days: number, today: string): Promise<string> {
  const site = await createSite(db, { name: `Scale stats ${days}`, accountId: ownerId })
  await fillBusyDays(db, site.id, days, today)
  return site.id
}

// --- media library ----------------------------------------------------------------------------

/** An account with `total` items in its media library, uploaded a second apart, each with the usual 12 variants. */
async function accountWithMedia(total: number) {
  const owner = await account()
  const s = stamp()
  const variants = (id: string) =>
    [320, 640, 960, 1280, 1920, 2560].flatMap((width) =>
      (['webp', 'jpeg'] as const).map((format) => ({
        width,
        height: Math.round((width * 3) / 4),
        format,
        bytes: width * 40,
        key: `media/${id}/${width}.${format === 'jpeg' ? 'jpg' : format}`,
      })),
    )
  // One variant list with a placeholder id, written per row by replace().
  const template = JSON.stringify(variants('@'))
  await sql`insert into media (id, account_id, filename, content_type, width, height, bytes, stored_bytes, sha256, variants, created_at)
    select 'med_' || ${s} || g, ${owner.id}, 'photo-' || g || '.jpg', 'image/jpeg', 4000, 3000, 5200000, 1100000, md5(${s} || g),
      replace(${template}, '@', 'med_' || ${s} || g)::jsonb, now() - make_interval(secs => ${total} - g)
    from generate_series(1, ${total}::int) g`.execute(db)
  return owner
}

// --- chat turns -------------------------------------------------------------------------------

const json = { 'content-type': 'application/json' }
type Session = { session_id: string; session_token: string }
let turnCounter = 0
const turn = (session: Session) => {
  turnCounter += 1
  return JSON.stringify({
    ...session,
    turn_id: `scale${turnCounter.toString(36).padStart(8, '0')}`,
    message: 'How much does the Pro plan cost?',
  })
}

/** `count` sessions of the platform's assistant, each holding `messages` transcript messages (two a turn). */
async function sessionsWith(count: number, messages: number): Promise<Session[]> {
  const sessions: Session[] = []
  for (let i = 0; i < count; i++) {
    const { session_id, session_token } = JSON.parse(
      await call('POST', '/api/agent/bootstrap', json, JSON.stringify({ url: '/en/pricing' })),
    ) as Session
    sessions.push({ session_id, session_token })
  }
  const seeding = new Agent({ connections: 8 })
  const queue = [...sessions]
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let session = queue.shift(); session; session = queue.shift()) {
        for (let t = 0; t < messages / 2; t++) {
          const res = await request(`${service.url}/api/agent/chat`, {
            method: 'POST',
            headers: json,
            body: turn(session),
            dispatcher: seeding,
          })
          await res.body.dump()
          if (res.statusCode !== 200) throw new Error(`a seeding turn answered ${res.statusCode}`)
        }
      }
    }),
  )
  await seeding.close()
  const held = await db
    .selectFrom('agent_messages')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('session_id', '=', sessions[0]!.session_id)
    .executeTakeFirstOrThrow()
  if (Number(held.n) !== messages) throw new Error(`a session holds ${held.n} messages, not ${messages}`)
  return sessions
}

// --- builds -----------------------------------------------------------------------------------

async function siteWithPages(accountId: string, pages: number): Promise<string> {
  const site = await createSite(db, { name: `Scale build ${pages}`, accountId, locales: ['en'], defaultLocale: 'en' })
  await addBakeryPages(db, site, pages)
  return site.id
}

/** A build as POST /v1/sites/{id}/rebuild queues it; its duration is the job's own (started to finished). */
async function build(siteId: string): Promise<number> {
  const { build } = await queueBuild(db, siteId)
  for (;;) {
    const row = await db.selectFrom('builds').selectAll().where('id', '=', build.id).executeTakeFirstOrThrow()
    if (row.status === 'failed') throw new Error(`build failed: ${row.error}`)
    if (row.status === 'succeeded') return row.finished_at!.getTime() - row.started_at!.getTime()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

// --- fan-out ----------------------------------------------------------------------------------

const RECEIVER = `
  import { createServer } from 'node:http'
  const server = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok') }) })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => console.log(server.address().port))`

async function accountWithEndpoints(receiverUrl: string, endpoints: number): Promise<string> {
  const { id } = await account()
  for (let i = 0; i < endpoints; i++) await createEndpoint(db, keyring, id, { url: `${receiverUrl}/hook/${i}` })
  return id
}

/** One event committed, until the last of its `endpoints` deliveries is recorded as succeeded. */
async function fanOut(accountId: string, endpoints: number): Promise<void> {
  const eventId = await db
    .transaction()
    .execute((trx) => recordEvent(trx, { accountId, siteId: null, type: 'site.published', data: { site_id: 'site_scale' } }))
  for (;;) {
    const done = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('event_id', '=', eventId)
      .where('state', '=', 'succeeded')
      .executeTakeFirstOrThrow()
    if (Number(done.n) === endpoints) return
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

// --- the run ----------------------------------------------------------------------------------

interface Row {
  operation: string
  scales: string[]
  samples: Samples[]
  /** How much more work each scale is than the first, for operations whose cost may grow with it. */
  work?: number[]
  withCpu: boolean
  /** Judged by the service's CPU rather than by time (a build: the machine's noise falls on time). */
  byCpu?: boolean
  /** The most the last scale may cost beside the first, when not the default. */
  limit?: number
}

/** Takes `rounds` samples of every scale of every row, the scales and rows in turn within a round. */
async function measure(rows: Array<Row & { once: Array<(i: number) => Promise<void>> }>, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    for (const row of rows) for (const [scale, once] of row.once.entries()) await row.samples[scale]!.take(() => once(i), row.withCpu)
  }
}

const receiver = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] })
try {
  const [chunk] = (await once(receiver.stdout!, 'data')) as [Buffer]
  const receiverUrl = `http://127.0.0.1:${chunk.toString().trim()}`
  const expectTotal = (total: number) => (body: string) => {
    const meta = (JSON.parse(body) as { meta: { total: number } }).meta
    if (meta.total < total || meta.total > total + 2 * samples + 100) throw new Error(`a list says ${meta.total} items, not ${total}`)
  }
  const get = (path: string, headers: Record<string, string>, check: (body: string) => void) => async () =>
    check(await call('GET', path, headers))

  const siteCounts = [100, 1000, 10_000]
  const listers = []
  for (const total of siteCounts) listers.push(await accountWithSites(total))
  const recordCounts = [10_000, 100_000, 1_000_000]
  const auditors = []
  for (const total of recordCounts) auditors.push(await accountWithAuditLog(total))
  const statsDays = [1, 10, 100]
  const statsOwner = await account()
  const today = new Date().toISOString().slice(0, 10)
  const statsSites: string[] = []
  for (const days of statsDays) statsSites.push(await siteWithStats(statsOwner.id, days, today))
  const mediaCounts = [100, 1000, 10_000]
  const librarians = []
  for (const total of mediaCounts) librarians.push(await accountWithMedia(total))
  await settle('sites', 'domains', 'audit_log', 'stats_days', 'stats_items', 'media')

  const messageCounts = [2, 20, 200]
  const sessions: Session[][] = []
  for (const messages of messageCounts) sessions.push(await sessionsWith(turnSessions, messages))
  await settle('agent_messages', 'agent_turns', 'agent_sessions')

  const builder = await account()
  const pageCounts = [50, 500]
  const buildSites: string[] = []
  for (const pages of pageCounts) buildSites.push(await siteWithPages(builder.id, pages))

  const endpointCounts = [1, 10, 100]
  const fanOutAccounts: string[] = []
  for (const endpoints of endpointCounts) fanOutAccounts.push(await accountWithEndpoints(receiverUrl, endpoints))
  await settle('pages', 'blocks', 'webhook_endpoints')

  const row = (operation: string, scales: string[], once: Array<(i: number) => Promise<void>>, extra: Partial<Row> = {}) => ({
    operation,
    scales,
    once,
    samples: once.map(() => new Samples()),
    withCpu: true,
    ...extra,
  })
  const reads = [
    row(
      'GET /v1/sites, page 1',
      ['100', '1,000', '10,000 sites'],
      listers.map((owner, i) => get('/v1/sites', owner.headers, expectTotal(siteCounts[i]!))),
    ),
    row(
      'GET /v1/sites, page 50 (2 a page)',
      ['100', '1,000', '10,000 sites'],
      listers.map((owner, i) => get('/v1/sites?page=50&per_page=2', owner.headers, expectTotal(siteCounts[i]!))),
    ),
    row(
      'GET /v1/audit-log, page 1',
      ['10^4', '10^5', '10^6 records'],
      auditors.map((owner, i) => get('/v1/audit-log', owner.headers, expectTotal(recordCounts[i]!))),
    ),
    row(
      'GET /v1/sites/{id}/stats, the last day',
      ['1', '10', '100 days kept'],
      statsSites.map((id) =>
        get(`/v1/sites/${id}/stats?from=${today}&to=${today}`, statsOwner.headers, (body) => {
          if ((JSON.parse(body) as { totals: { pageviews: number } }).totals.pageviews !== 100_000) throw new Error('other figures')
        }),
      ),
      { limit: 1.2 },
    ),
    row(
      'GET /v1/media, page 1',
      ['100', '1,000', '10,000 items'],
      librarians.map((owner, i) => get('/v1/media', owner.headers, expectTotal(mediaCounts[i]!))),
      { limit: 1.2 },
    ),
  ]
  // Warm-up, then the measured rounds.
  await measure(
    reads.map((r) => ({ ...r, samples: r.samples.map(() => new Samples()) })),
    20,
  )
  await measure(reads, samples)
  // Each turn goes to a session of its own, which then holds two messages more: one round per session.
  const turns = row(
    'POST /api/agent/chat',
    ['2', '20', '200 messages'],
    sessions.map((group) => async (i: number) => void (await call('POST', '/api/agent/chat', json, turn(group[i]!)))),
  )
  const warmTurns = Math.min(10, Math.floor(turnSessions / 4))
  await measure(
    [
      {
        ...turns,
        once: turns.once.map((once) => (i: number) => once(turnSessions - 1 - i)),
        samples: turns.samples.map(() => new Samples()),
      },
    ],
    warmTurns,
  )
  await measure([turns], turnSessions - warmTurns)
  const builds = row('build of a site', ['50', '500 pages'], [], {
    work: [1, 10],
    byCpu: true,
    samples: pageCounts.map(() => new Samples()),
  })
  const fanOuts = row(
    'one event to every endpoint',
    ['1', '10', '100 endpoints'],
    fanOutAccounts.map((id, i) => () => fanOut(id, endpointCounts[i]!)),
    { work: [1, 10, 100], withCpu: false },
  )
  await measure([{ ...fanOuts, samples: fanOuts.samples.map(() => new Samples()) }], 1)
  await measure([fanOuts], Number(process.env.BENCH_FANOUTS ?? 9))
  // A build's duration is the job's own, read from the database; its CPU is the service's while it
  // runs (nothing else is asked of the service meanwhile), the compression in the thread pool included.
  for (let i = 0; i < Number(process.env.BENCH_BUILDS ?? 3); i++) {
    for (const [scale, siteId] of buildSites.entries()) {
      const cpuBefore = cpuMicros(service.pid) ?? 0
      builds.samples[scale]!.ms.push(await build(siteId))
      builds.samples[scale]!.cpu += (cpuMicros(service.pid) ?? 0) - cpuBefore
    }
  }

  console.log(
    `\nhow cost grows with data (PostgreSQL on loopback, all scales in one database, measured in turn; reads one at a time, median of ${samples})`,
  )
  console.log('| operation | data | cost at each scale | last / first | limit | |')
  console.log('|---|---|---|---|---|---|')
  for (const r of [...reads, turns, builds, fanOuts]) {
    const first = r.samples[0]!
    const last = r.samples.at(-1)!
    const cost = (s: Samples) =>
      `${s.median.toFixed(s.median < 100 ? 2 : 0)} ms${r.withCpu ? ` (${s.cpuPerSample >= 10_000 ? `${(s.cpuPerSample / 1000).toFixed(0)} ms` : `${s.cpuPerSample.toFixed(0)} µs`} CPU)` : ''}`
    const ratio = r.byCpu ? last.cpuPerSample / first.cpuPerSample : last.median / first.median
    // Work that grows with the data (pages, endpoints) is compared per unit of work.
    const growth = r.work?.at(-1)
    const perUnit = growth ? ratio / growth : ratio
    const limit = r.limit ?? (growth ? 1 : 1.5)
    const shown = `${growth ? `${ratio.toFixed(2)}x for ${growth}x the work: ${perUnit.toFixed(2)}x per unit` : `${ratio.toFixed(2)}x`}${r.byCpu ? ' (by CPU)' : ''}`
    console.log(
      `| ${r.operation} | ${r.scales.join(' / ')} | ${r.samples.map(cost).join(' / ')} | ${shown} | ${limit.toFixed(1)}x | ${perUnit <= limit ? 'within' : 'OVER'} |`,
    )
  }
} finally {
  receiver.kill('SIGTERM')
  await agent.close()
  await store.close()
  await service.stop()
}
