// GET /api/pricing and GET /api/ready on real PostgreSQL, beside a bare Fastify hello-world and a
// bare Fastify server sending the pricing body with the same headers. Target: /api/pricing at 85 %
// or more of the latter's req/s, with request ids, helmet's headers, rate limiting and the access
// log on: the shared per-request path is what the ratio measures.
// BENCH_ROUNDS rounds (default 3) measure every target in turn, so a slow spell of a shared machine
// falls on all of them alike; each figure printed is the round with the median req/s.
import { load, median, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const baseline = await startBaseline()
const samePayload = await startBaseline('pricing')
const service = await startService()
try {
  const targets = [
    { name: 'bare Fastify hello-world', url: `${baseline.url}/`, pid: baseline.pid },
    { name: 'bare Fastify, pricing body + headers', url: `${samePayload.url}/`, pid: samePayload.pid },
    { name: 'GET /api/pricing', url: `${service.url}/api/pricing`, pid: service.pid },
    { name: 'GET /api/ready', url: `${service.url}/api/ready`, pid: service.pid },
  ]
  for (const target of targets) await warm({ url: target.url, connections })
  const runs = targets.map((): LoadResult[] => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) runs[i]!.push(await load({ url: target.url, connections, pid: target.pid }))
  }
  const medians = runs.map(median)
  const [bare, same, pricing] = medians as [LoadResult, LoadResult, LoadResult]
  const [, sameRuns, pricingRuns] = runs as [LoadResult[], LoadResult[], LoadResult[]]
  report(
    `foundation (${connections} connections, loopback, PostgreSQL, median of ${rounds} rounds)`,
    bare,
    targets.slice(1).map((target, i) => ({ name: target.name, result: medians[i + 1]! })),
  )
  const percent = (r: LoadResult, base: LoadResult) => `${((r.requestsPerSecond / base.requestsPerSecond) * 100).toFixed(1)} %`
  const byRound = pricingRuns.map((r, i) => percent(r, sameRuns[i]!)).join(', ')
  const cpu = (r: LoadResult) => (r.cpuPerRequest == null ? '-' : `${r.cpuPerRequest.toFixed(1)} µs`)
  console.log(`\n/api/pricing reaches ${percent(pricing, same)} of the req/s of bare Fastify with the same body and headers (target 85 %); by round: ${byRound}`)
  console.log(`server CPU per request: /api/pricing ${cpu(pricing)}, same body and headers ${cpu(same)}, hello-world ${cpu(bare)}`)
} finally {
  await service.stop()
  await samePayload.stop()
  await baseline.stop()
}
