// GET /api/seo-check/audit on real PostgreSQL against fixture sites served on loopback, beside a
// bare Fastify hello-world. Every uncached audit needs a domain of its own (a repeat within ten
// minutes is served from the store), so each one gets its own fixture server (its own port).
// Targets: a single-page audit under 50 ms median; a 50-page premium audit under 2 s; a repeat
// served from the store at 0.5x or more of GET /api/ready's req/s (BENCH_ROUNDS rounds, medians).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { serveFixture, type FixtureSite } from '../../test/fixtures/sites/serve.ts'
import { load, median, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const SINGLE = Number(process.env.BENCH_AUDITS ?? 60)
const PREMIUM = Number(process.env.BENCH_PREMIUM_AUDITS ?? 8)
const PARALLEL = 8
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

/** A 50-page site: the clean home page linking to 49 pages built from the clean about page. */
function premiumOverrides(): Record<string, string> {
  const dir = fileURLToPath(new URL('../../test/fixtures/sites/clean/', import.meta.url))
  const about = readFileSync(`${dir}about.html`, 'utf8')
  const links = Array.from({ length: 49 }, (_, i) => `<a href="/page-${i}">Page ${i}</a>`).join(' ')
  const overrides: Record<string, string> = { '/': readFileSync(`${dir}index.html`, 'utf8').replace('</main>', `<p>${links}</p></main>`) }
  for (let i = 0; i < 49; i++) {
    overrides[`/page-${i}`] = about
      .replaceAll('/about', `/page-${i}`)
      .replace(/<title>[^<]*<\/title>/, `<title>Sample Bakery page ${i} – our team</title>`)
  }
  return overrides
}

function stats(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { median: at(0.5), p95: at(0.95), mean: ms.reduce((a, b) => a + b, 0) / ms.length }
}

async function auditOnce(base: string, domain: string, premium: boolean): Promise<{ ms: number; pages: number }> {
  const started = performance.now()
  const res = await fetch(`${base}/api/seo-check/audit?d=${encodeURIComponent(domain)}${premium ? '&premium=1' : ''}`)
  const body = (await res.json()) as { pages_checked?: number; cached?: boolean; reachable?: boolean }
  const ms = performance.now() - started
  if (res.status !== 200 || body.cached || !body.reachable)
    throw new Error(`unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 200)}`)
  return { ms, pages: body.pages_checked ?? 0 }
}

const sites: FixtureSite[] = []
const baseline = await startBaseline()
const service = await startService({ NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' })
try {
  const overrides = premiumOverrides()
  const single = await Promise.all(Array.from({ length: SINGLE * 2 + 4 }, () => serveFixture('clean')))
  const premium = await Promise.all(Array.from({ length: PREMIUM + 1 }, () => serveFixture('clean', { overrides })))
  sites.push(...single, ...premium)

  // Warm-up: JIT, pools, the fetcher's TLS attempt path.
  for (const site of single.splice(0, 4)) await auditOnce(service.url, site.domain, false)
  await auditOnce(service.url, premium.shift()!.domain, true)

  // One audit at a time: the time a visitor waits.
  const sequential: number[] = []
  for (const site of single.splice(0, SINGLE)) sequential.push((await auditOnce(service.url, site.domain, false)).ms)

  // PARALLEL at once: throughput.
  const started = performance.now()
  const queue = single.splice(0, SINGLE)
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let site = queue.shift(); site; site = queue.shift()) await auditOnce(service.url, site.domain, false)
    }),
  )
  const parallelSeconds = (performance.now() - started) / 1000

  const premiumTimes: number[] = []
  let pages = 0
  for (const site of premium) {
    const run = await auditOnce(service.url, site.domain, true)
    premiumTimes.push(run.ms)
    pages = run.pages
  }

  // Repeats inside the freshness window are answered from the store: that path under load, measured
  // in turn with /api/ready (one database round trip, a tiny body) and the hello-world.
  const targets = [
    { name: 'hello', url: `${baseline.url}/`, pid: baseline.pid },
    { name: 'GET /api/ready', url: `${service.url}/api/ready`, pid: service.pid },
    {
      name: 'GET audit, repeat served from store',
      url: `${service.url}/api/seo-check/audit?d=${encodeURIComponent(sites[0]!.domain)}`,
      pid: service.pid,
    },
  ]
  for (const target of targets) await warm({ url: target.url, connections })
  const runs = targets.map((): LoadResult[] => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) runs[i]!.push(await load({ url: target.url, connections, pid: target.pid }))
  }
  const [bare, ready, cached] = runs.map(median) as [LoadResult, LoadResult, LoadResult]
  report(`seo-check audit (${connections} connections, loopback, PostgreSQL, median of ${rounds} rounds)`, bare, [
    { name: 'GET /api/ready (reference)', result: ready },
    { name: 'GET audit, repeat served from store', result: cached },
  ])
  const byRound = runs[2]!.map((r, i) => (r.requestsPerSecond / runs[1]![i]!.requestsPerSecond).toFixed(2)).join(', ')
  console.log(
    `\nrepeat audit at ${(cached.requestsPerSecond / ready.requestsPerSecond).toFixed(2)}x the req/s of /api/ready (target 0.5x); by round: ${byRound}; p50 ${cached.p50} ms`,
  )

  const s = stats(sequential)
  const p = stats(premiumTimes)
  console.log(`\nuncached audits of fixture sites on loopback (each its own domain)`)
  console.log(
    `single page, one at a time   median ${s.median.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms  mean ${s.mean.toFixed(1)} ms  → ${(1000 / s.mean).toFixed(1)} audits/s  (n=${SINGLE}, target median < 50 ms)`,
  )
  console.log(
    `single page, ${PARALLEL} at a time     ${(SINGLE / parallelSeconds).toFixed(1)} audits/s  ${((parallelSeconds * 1000 * PARALLEL) / SINGLE).toFixed(1)} ms per audit`,
  )
  console.log(
    `premium (${pages} pages)          median ${p.median.toFixed(0)} ms  p95 ${p.p95.toFixed(0)} ms  → ${(1000 / p.mean).toFixed(2)} audits/s  (n=${premiumTimes.length}, target < 2000 ms)`,
  )
} finally {
  await Promise.all(sites.map((s) => s.close()))
  await service.stop()
  await baseline.stop()
}
