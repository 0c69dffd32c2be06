// Reading visitor statistics (DESIGN.md 18) on real PostgreSQL: GET /v1/sites/{id}/stats of a
// site with 100,000 page views a day (913 roll-up rows a day, see stats-data.ts) kept for 400
// days, asked one request at a time (BENCH_SAMPLES, default 200, after 20 to warm up) for the
// last 7, 30 and 90 days; the service's CPU per request beside the wall time.
// Target: the 90 days answer in < 50 ms p50.
// The page path with counting beside the same path without it is measured by bench:sites.
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import pino from 'pino'
import { Agent, request } from 'undici'
import { createSite } from '../../src/domain/sites/sites.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import { openDataStore } from '../../src/infra/db.ts'
import { benchAccountToken, cpuMicros, middle, startService } from './lib.ts'
import { BUSY_DAY_ROWS, fillBusyDays } from './stats-data.ts'

const samples = Number(process.env.BENCH_SAMPLES ?? 200)
const KEPT_DAYS = 400
const dataKey = randomBytes(32).toString('base64')
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey })
const store = await openDataStore({ databaseUrl: service.databaseUrl, dataDir: tmpdir(), log: pino({ level: 'silent' }) })
const agent = new Agent({ connections: 1 })
try {
  const { accountId, token } = await benchAccountToken(service.databaseUrl, dataKey, 'read:sites')
  const headers = { authorization: `Bearer ${token}` }
  const today = new Date().toISOString().slice(0, 10)
  // The busy site, and a quieter neighbour whose rows share the tables.
  const site = await createSite(store.db, { name: 'Busy Bakery', accountId })
  const neighbour = await createSite(store.db, { name: 'Neighbour', accountId })
  await fillBusyDays(store.db, neighbour.id, KEPT_DAYS, today)
  await fillBusyDays(store.db, site.id, KEPT_DAYS, today)

  const ask = async (days: number) => {
    const path = `/v1/sites/${site.id}/stats?from=${addDays(today, -(days - 1))}&to=${today}`
    const res = await request(`${service.url}${path}`, { headers, dispatcher: agent })
    const body = (await res.body.json()) as { totals: { pageviews: number }; days: unknown[] }
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`)
    if (body.days.length !== days || body.totals.pageviews !== days * 100_000) throw new Error(`${path} answered other figures`)
  }
  const spans = [7, 30, 90]
  const ms = new Map(spans.map((days) => [days, [] as number[]]))
  const cpu = new Map(spans.map((days) => [days, 0]))
  for (let i = 0; i < 20; i++) for (const days of spans) await ask(days)
  // The spans in turn, so a busy moment of the machine falls on all of them alike.
  for (let i = 0; i < samples; i++) {
    for (const days of spans) {
      const cpuBefore = cpuMicros(service.pid) ?? 0
      const started = performance.now()
      await ask(days)
      ms.get(days)!.push(performance.now() - started)
      cpu.set(days, cpu.get(days)! + (cpuMicros(service.pid) ?? 0) - cpuBefore)
    }
  }
  const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!
  console.log(
    `\nvisitor statistics of a site with 100,000 page views a day (${BUSY_DAY_ROWS} roll-up rows a day, ${KEPT_DAYS} days kept, a neighbour as busy; PostgreSQL on loopback; one request at a time, ${samples} samples)`,
  )
  for (const days of spans) {
    const values = ms.get(days)!
    console.log(
      `GET /v1/sites/{id}/stats, last ${String(days).padStart(2)} days: p50 ${middle(values).toFixed(1)} ms, p99 ${p(values, 0.99).toFixed(1)} ms, service CPU ${(cpu.get(days)! / samples / 1000).toFixed(1)} ms a request`,
    )
  }
  const p50 = middle(ms.get(90)!)
  console.log(`the stats of 90 days: p50 ${p50.toFixed(1)} ms; target < 50 ms p50: ${p50 < 50 ? 'met' : 'NOT met'}`)
} finally {
  await agent.close()
  await store.close()
  await service.stop()
}
