// Webhook delivery on real PostgreSQL against the peer a user would pick instead: graphile-worker
// (a development dependency of this benchmark only) delivering the same events to the same
// loopback receiver (a child process) from the same database with the same concurrency, its task
// doing what ours does: read the event and its endpoints, sign (standardwebhooks), POST, and
// record the attempt (a delivery row and an attempt row with the sealed answer). Every round
// commits BENCH_EVENTS events (100 to a transaction, each queuing its job as ours does) while no
// worker runs, then starts one system's worker and times it until the last delivery is recorded;
// the systems alternate over BENCH_ROUNDS rounds and medians are compared. Per core: deliveries
// per CPU second of this process (the worker) and of the database's backends serving it.
// Target: >= 1.0x graphile-worker's deliveries per second. Beside them, a loop of raw undici POSTs
// of the same body, and the latency of ours from an event's commit to its first attempt (targets
// p50 < 50 ms, p99 < 250 ms).
//   BENCH_EVENTS (10000)        events of each throughput round
//   BENCH_ROUNDS (3)            rounds of each system
//   BENCH_LATENCY_EVENTS (1000) events of the latency run, one transaction each, BENCH_RATE (100) a second
//   BENCH_CONCURRENCY (16)      jobs a worker runs at once, and raw POSTs in flight
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Logger, run, runMigrations, type Task } from 'graphile-worker'
import { sql } from 'kysely'
import pg from 'pg'
import { pino } from 'pino'
import { Webhook } from 'standardwebhooks'
import { Agent, request } from 'undici'
import { eventBody, openEvent, recordEvent } from '../../src/domain/webhooks/events.ts'
import { responseContext } from '../../src/domain/webhooks/attempt-record.ts'
import { defineWebhookJobs } from '../../src/domain/webhooks/engine.ts'
import { createEndpoint, signingSecrets } from '../../src/domain/webhooks/endpoints.ts'
import { createKeyring, newId } from '../../src/infra/crypto.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { JobRunner } from '../../src/infra/jobs.ts'
import { migrateToLatest } from '../../src/infra/migrate.ts'
import { defaultRetryClock } from '../../src/domain/webhooks/retry.ts'
import { webhookHeaders } from '../../src/domain/webhooks/signature.ts'
import { freshBenchDatabase, middle } from './lib.ts'

const events = Number(process.env.BENCH_EVENTS ?? 10_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const latencyEvents = Number(process.env.BENCH_LATENCY_EVENTS ?? 1000)
const rate = Number(process.env.BENCH_RATE ?? 100)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16)

const RECEIVER = `
  import { createServer } from 'node:http'
  const server = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok') }) })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => console.log(server.address().port))`

async function startReceiverProcess() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  return { url: `http://127.0.0.1:${chunk.toString().trim()}/hook`, stop: async () => (child.kill('SIGTERM'), await once(child, 'exit')) }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** CPU seconds (user + system) of a process from /proc, or undefined when it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

const log = pino({ level: 'silent' })
const database = await freshBenchDatabase()
const receiver = await startReceiverProcess()
const store = await openDataStore({ databaseUrl: database.url, dataDir: '/tmp/wps-bench', log, poolSize: concurrency + 4 })
const fetcher = createSafeFetcher({ allowPrivateNetworks: true, maxRedirects: 0, maxBytes: 1024, connections: concurrency })
const rawAgent = new Agent({ connections: concurrency })
const peerAgent = new Agent({ connections: concurrency })
const peerPool = new pg.Pool({ connectionString: database.url, max: concurrency + 4 })
peerPool.on('error', () => {})
peerPool.on('connect', (client) => client.on('error', () => {}))
const watcher = new pg.Client({ connectionString: database.url })
let ourRunner: JobRunner | undefined
try {
  await watcher.connect()
  await migrateToLatest(store.db)
  await runMigrations({ pgPool: peerPool, logger: new Logger(() => () => {}) })
  const { db } = store
  const keyring = createKeyring(randomBytes(32))
  const newAccount = async () => {
    const id = newId('acct')
    await db.insertInto('accounts').values({ id, plan: 'pro' }).execute()
    return { id, ...(await createEndpoint(db, keyring, id, { url: receiver.url })) }
  }
  const ours = await newAccount()
  const peer = await newAccount()
  const data = (i: number) => ({
    site_id: 'site_bench',
    build_id: `bld_${i}`,
    url: 'https://bench.example/',
    pages: 12,
    published_at: new Date().toISOString(),
  })

  /**
   * CPU seconds so far of this process and of the database's backends, the latter sampled every
   * 200 ms so a connection that opens and closes within a run is counted too.
   */
  const backendCpu = new Map<number, number>()
  const sampleBackends = async () => {
    const { rows } = await watcher.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    )
    for (const { pid } of rows) {
      const seconds = cpuSeconds(pid)
      if (seconds !== undefined) backendCpu.set(pid, seconds)
    }
  }
  const sampler = setInterval(() => void sampleBackends().catch(() => {}), 200)
  const cpuNow = async () => {
    await sampleBackends()
    const own = process.cpuUsage()
    return { process: (own.user + own.system) / 1e6, database: [...backendCpu.values()].reduce((a, b) => a + b, 0) }
  }

  // Raw POSTs: the same kind of signed JSON body, `concurrency` in flight, as fast as the receiver takes them.
  const body = JSON.stringify({ type: 'site.published', timestamp: new Date().toISOString(), data: data(0) })
  async function rawRate(total: number): Promise<number> {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < total) {
          const headers = webhookHeaders([ours.secret], `evt_${next}`, Math.floor(Date.now() / 1000), body)
          const res = await request(receiver.url, {
            method: 'POST',
            dispatcher: rawAgent,
            body,
            headers: { ...headers, 'content-type': 'application/json' },
          })
          await res.body.dump()
        }
      }),
    )
    return total / ((performance.now() - started) / 1000)
  }

  // graphile-worker's task: the event with its account's endpoints in one read, then per endpoint
  // sign, POST and record the delivery with its attempt in one statement.
  const deliver: Task = async (payload) => {
    const { event_id: eventId } = payload as { event_id: string }
    const { rows } = await peerPool.query({
      name: 'peer_read',
      text: `select e.id, e.account_id, e.site_id, e.type, e.data, e.personal_sealed, e.created_at,
          w.id as endpoint_id, w.url, w.secret_sealed, w.previous_secret_sealed, w.previous_expires_at
        from events e join webhook_endpoints w on w.account_id = e.account_id and w.enabled
          and (w.event_types = '[]'::jsonb or w.event_types @> jsonb_build_array(e.type))
        where e.id = $1`,
      values: [eventId],
    })
    for (const row of rows) {
      const event = openEvent(keyring, row)
      const payloadText = eventBody(event)
      const started = new Date()
      const signatures = signingSecrets(keyring, { ...row, id: row.endpoint_id }, started).map((secret) =>
        new Webhook(secret).sign(event.id, started, payloadText),
      )
      const res = await request(row.url, {
        method: 'POST',
        dispatcher: peerAgent,
        body: payloadText,
        headers: {
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(started.getTime() / 1000)),
          'webhook-signature': signatures.join(' '),
          'content-type': 'application/json',
        },
      })
      const answer = (await res.body.text()).slice(0, 1024)
      const finished = new Date()
      const attemptId = newId('wha')
      await peerPool.query({
        name: 'peer_record',
        text: `with d as (
            insert into webhook_deliveries (id, account_id, endpoint_id, event_id, state, attempts, first_attempt_at, last_status, delivered_at)
            values ($1, $2, $3, $4, 'succeeded', 1, $5, $6, $7) returning id)
          insert into webhook_attempts (id, delivery_id, endpoint_id, attempt, attempted_at, status, duration_ms, response)
          select $8, d.id, $3, 1, $5, $6, $9, $10 from d`,
        values: [
          newId('dlv'),
          row.account_id,
          row.endpoint_id,
          event.id,
          started,
          res.statusCode,
          finished,
          attemptId,
          finished.getTime() - started.getTime(),
          keyring.seal(answer, responseContext(attemptId)),
        ],
      })
    }
  }

  const delivered = async (accountId: string) =>
    Number(
      (
        await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('account_id', '=', accountId)
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow()
      ).n,
    )

  /** Commits `events` events of the account, 100 to a transaction; `queue` adds each one's job. */
  async function commitEvents(accountId: string, queue: 'ours' | 'peer', count: number): Promise<void> {
    for (let i = 0; i < count; i += 100) {
      await db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(count, i + 100); j++) {
          if (queue === 'ours') {
            await recordEvent(trx, { accountId, siteId: 'site_bench', type: 'site.published', data: data(j) })
          } else {
            const id = newId('evt')
            await trx
              .insertInto('events')
              .values({
                id,
                account_id: accountId,
                site_id: 'site_bench',
                type: 'site.published',
                data: JSON.stringify(data(j)),
                personal_sealed: null,
              })
              .execute()
            await sql`select graphile_worker.add_job('deliver', json_build_object('event_id', ${id}::text))`.execute(trx)
          }
        }
      })
    }
  }

  interface Round {
    perSecond: number
    perCoreWorker: number
    perCoreWithDatabase: number
  }

  /** One round of one system: its events committed, then its worker started and timed to the last delivery. */
  async function throughput(system: 'ours' | 'peer', count = events): Promise<Round> {
    const accountId = system === 'ours' ? ours.id : peer.id
    const before = await delivered(accountId)
    await commitEvents(accountId, system, count)
    const cpuBefore = await cpuNow()
    const started = performance.now()
    let stop: () => Promise<void>
    if (system === 'ours') {
      const runner = new JobRunner({ store, log, concurrency, pollIntervalMs: 1000 })
      defineWebhookJobs(runner, {
        db,
        keyring,
        fetcher,
        mailer: { transport: 'outbox', send: async () => {} },
        log,
        clock: defaultRetryClock(),
      })
      await runner.start()
      ourRunner = runner
      stop = () => runner.stop()
    } else {
      const runner = await run({
        pgPool: peerPool,
        concurrency,
        noHandleSignals: true,
        pollInterval: 1000,
        taskList: { deliver },
        logger: new Logger(() => () => {}),
      })
      stop = () => runner.stop()
    }
    while ((await delivered(accountId)) < before + count) await sleep(50)
    const seconds = (performance.now() - started) / 1000
    const cpuAfter = await cpuNow()
    await stop()
    ourRunner = undefined
    const workerCpu = cpuAfter.process - cpuBefore.process
    const databaseCpu = cpuAfter.database - cpuBefore.database
    return { perSecond: count / seconds, perCoreWorker: count / workerCpu, perCoreWithDatabase: count / (workerCpu + databaseCpu) }
  }

  await rawRate(1000)
  const rawBefore = await rawRate(events)
  // A short round of each first: JIT, pools and the receiver's connections.
  await throughput('ours', 1000)
  await throughput('peer', 1000)
  const measured = { ours: [] as Round[], peer: [] as Round[] }
  for (let i = 0; i < rounds; i++) {
    measured.ours.push(await throughput('ours'))
    measured.peer.push(await throughput('peer'))
  }
  const rawAfter = await rawRate(events)
  const raw = (rawBefore + rawAfter) / 2

  // Latency: events one at a time at a steady rate, each timed from its commit to its first attempt.
  const runner = new JobRunner({ store, log, concurrency, pollIntervalMs: 1000 })
  defineWebhookJobs(runner, {
    db,
    keyring,
    fetcher,
    mailer: { transport: 'outbox', send: async () => {} },
    log,
    clock: defaultRetryClock(),
  })
  await runner.start()
  ourRunner = runner
  const deliveredBefore = await delivered(ours.id)
  const committedAt = new Map<string, number>()
  for (let i = 0; i < latencyEvents; i++) {
    const due = performance.now() + 1000 / rate
    const id = await db
      .transaction()
      .execute((trx) => recordEvent(trx, { accountId: ours.id, siteId: 'site_bench', type: 'site.published', data: data(i) }))
    committedAt.set(id, Date.now())
    await sleep(Math.max(0, due - performance.now()))
  }
  while ((await delivered(ours.id)) < deliveredBefore + latencyEvents) await sleep(50)
  clearInterval(sampler)
  const attempts = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['d.event_id', 'a.attempted_at'])
    .where('a.attempt', '=', 1)
    .where('d.event_id', 'in', [...committedAt.keys()])
    .execute()
  const latencies = attempts.map((a) => a.attempted_at.getTime() - committedAt.get(a.event_id)!).sort((a, b) => a - b)

  const med = (list: Round[], key: keyof Round) => middle(list.map((r) => r[key]))
  const line = (name: string, list: Round[]) =>
    `  ${name.padEnd(34)} ${med(list, 'perSecond').toFixed(0).padStart(6)} deliveries/s   per core: ${med(list, 'perCoreWorker').toFixed(0).padStart(6)} (worker process), ${med(list, 'perCoreWithDatabase').toFixed(0).padStart(6)} (worker + database)   by round ${list.map((r) => r.perSecond.toFixed(0)).join(', ')}`
  const ratio = med(measured.ours, 'perSecond') / med(measured.peer, 'perSecond')
  const byRound = measured.ours.map((r, i) => (r.perSecond / measured.peer[i]!.perSecond).toFixed(2)).join(', ')
  const p50 = percentile(latencies, 50)
  const p99 = percentile(latencies, 99)
  console.log(
    `\nwebhooks (PostgreSQL, loopback receiver in its own process, ${concurrency} jobs in flight, ${events} events a round, median of ${rounds} rounds)`,
  )
  console.log(
    `  raw undici POSTs                   ${raw.toFixed(0).padStart(6)}/s (before ${rawBefore.toFixed(0)}, after ${rawAfter.toFixed(0)})`,
  )
  console.log(line('graphile-worker (same task)', measured.peer))
  console.log(line('ours (fan-out + delivery jobs)', measured.ours))
  console.log(
    `\nwebhooks vs graphile-worker: ${ratio.toFixed(2)}x its deliveries/s (by round ${byRound}), ${(med(measured.ours, 'perCoreWithDatabase') / med(measured.peer, 'perCoreWithDatabase')).toFixed(2)}x its deliveries per core with the database, ${(med(measured.ours, 'perCoreWorker') / med(measured.peer, 'perCoreWorker')).toFixed(2)}x per core of the worker; target >= 1.0x: ${ratio >= 1 ? 'met' : 'NOT met'}`,
  )
  console.log(
    `  commit -> first attempt (ours)    p50 ${p50} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms over ${latencies.length} events at ${rate}/s (targets p50 < 50, p99 < 250)`,
  )
} finally {
  await ourRunner?.stop()
  await watcher.end().catch(() => {})
  await peerPool.end()
  await fetcher.close()
  await rawAgent.close()
  await peerAgent.close()
  await store.close()
  await receiver.stop()
  await database.drop()
}
