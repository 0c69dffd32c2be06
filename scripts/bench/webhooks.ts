// Webhook delivery on real PostgreSQL: events fanned out to one loopback receiver (a child process),
// beside a loop of raw undici POSTs of the same body to the same receiver in the same run.
// Targets: event committed -> first attempt p50 < 50 ms and p99 < 250 ms; sustained deliveries
// >= 0.5x the raw POST rate.
//   BENCH_EVENTS (10000)       events of the throughput run, committed 100 to a transaction
//   BENCH_LATENCY_EVENTS (1000) events of the latency run, one transaction each, BENCH_RATE (100) a second
//   BENCH_CONCURRENCY (16)     jobs one worker runs at once, and raw POSTs in flight
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import { Agent, request } from 'undici'
import { recordEvent } from '../../src/domain/events.ts'
import { defineWebhookJobs } from '../../src/domain/webhook-delivery.ts'
import { createEndpoint } from '../../src/domain/webhooks.ts'
import { createKeyring, newId } from '../../src/infra/crypto.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { JobRunner } from '../../src/infra/jobs.ts'
import { migrateToLatest } from '../../src/infra/migrate.ts'
import { defaultRetryClock } from '../../src/infra/webhook-retry.ts'
import { webhookHeaders } from '../../src/infra/webhook-signature.ts'
import { freshBenchDatabase } from './lib.ts'

const events = Number(process.env.BENCH_EVENTS ?? 10_000)
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

const log = pino({ level: 'silent' })
const database = await freshBenchDatabase()
const receiver = await startReceiverProcess()
const store = await openDataStore({ databaseUrl: database.url, dataDir: '/tmp/wps-bench', log, poolSize: concurrency + 4 })
const fetcher = createSafeFetcher({ allowPrivateNetworks: true, maxRedirects: 0, maxBytes: 1024, connections: concurrency })
const rawAgent = new Agent({ connections: concurrency })
const runner = new JobRunner({ store, log, concurrency, pollIntervalMs: 1000 })
try {
  await migrateToLatest(store.db)
  const { db } = store
  const keyring = createKeyring(randomBytes(32))
  const accountId = newId('acct')
  await db.insertInto('accounts').values({ id: accountId, plan: 'pro' }).execute()
  const { secret } = await createEndpoint(db, keyring, accountId, { url: receiver.url })
  defineWebhookJobs(runner, { db, keyring, fetcher, mailer: { transport: 'outbox', send: async () => {} }, log, clock: defaultRetryClock() })
  const data = (i: number) => ({ site_id: 'site_bench', build_id: `bld_${i}`, url: 'https://bench.example/', pages: 12, published_at: new Date().toISOString() })

  // Raw POSTs: the same kind of signed JSON body, `concurrency` in flight, as fast as the receiver takes them.
  const body = JSON.stringify({ type: 'site.published', timestamp: new Date().toISOString(), data: data(0) })
  async function rawRate(total: number): Promise<number> {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < total) {
          const headers = webhookHeaders([secret], `evt_${next}`, Math.floor(Date.now() / 1000), body)
          const res = await request(receiver.url, { method: 'POST', dispatcher: rawAgent, body, headers: { ...headers, 'content-type': 'application/json' } })
          await res.body.dump()
        }
      }),
    )
    return total / ((performance.now() - started) / 1000)
  }
  await rawRate(1000)
  const rawBefore = await rawRate(events)

  const delivered = async () => Number((await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('state', '=', 'succeeded').executeTakeFirstOrThrow()).n)
  // Throughput: every event committed up front (100 to a transaction) while no worker runs, then
  // the workers start and the time until the last delivery succeeded is the delivery rate.
  const committing = performance.now()
  for (let i = 0; i < events; i += 100) {
    await db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(events, i + 100); j++) await recordEvent(trx, { accountId, siteId: 'site_bench', type: 'site.published', data: data(j) })
    })
  }
  const committedIn = performance.now() - committing
  const started = performance.now()
  await runner.start()
  while ((await delivered()) < events) await sleep(50)
  const deliveryRate = events / ((performance.now() - started) / 1000)
  const rawAfter = await rawRate(events)

  // Latency: events one at a time at a steady rate, each timed from its commit to its first attempt.
  const committedAt = new Map<string, number>()
  for (let i = 0; i < latencyEvents; i++) {
    const due = performance.now() + 1000 / rate
    const id = await db.transaction().execute((trx) => recordEvent(trx, { accountId, siteId: 'site_bench', type: 'site.published', data: data(i) }))
    committedAt.set(id, Date.now())
    await sleep(Math.max(0, due - performance.now()))
  }
  while ((await delivered()) < events + latencyEvents) await sleep(50)
  const attempts = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['d.event_id', 'a.attempted_at'])
    .where('a.attempt', '=', 1)
    .where('d.event_id', 'in', [...committedAt.keys()])
    .execute()
  const latencies = attempts.map((a) => a.attempted_at.getTime() - committedAt.get(a.event_id)!).sort((a, b) => a - b)
  const raw = (rawBefore + rawAfter) / 2

  const p50 = percentile(latencies, 50)
  const p99 = percentile(latencies, 99)
  console.log(`\nwebhooks (PostgreSQL, loopback receiver in its own process, ${concurrency} jobs / POSTs in flight)`)
  console.log(`  raw undici POSTs          ${raw.toFixed(0)}/s (before ${rawBefore.toFixed(0)}, after ${rawAfter.toFixed(0)})`)
  console.log(`  deliveries, ${events} events  ${deliveryRate.toFixed(0)}/s = ${(deliveryRate / raw).toFixed(2)}x raw (target >= 0.5x; fan-out and delivery after the events were committed, in ${(committedIn / 1000).toFixed(1)} s)`)
  console.log(`  commit -> first attempt   p50 ${p50} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms over ${latencies.length} events at ${rate}/s (targets p50 < 50, p99 < 250)`)
} finally {
  await runner.stop()
  await fetcher.close()
  await rawAgent.close()
  await store.close()
  await receiver.stop()
  await database.drop()
}
