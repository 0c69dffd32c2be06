// GET /api/pricing and GET /api/ready on real PostgreSQL, beside a bare Fastify hello-world.
// Target: /api/pricing at 85 % or more of the baseline's req/s with helmet, rate limiting and logging on.
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
    { name: 'baseline', url: `${baseline.url}/`, pid: baseline.pid },
    { name: 'bare Fastify, pricing body + headers', url: `${samePayload.url}/`, pid: samePayload.pid },
    { name: 'GET /api/pricing', url: `${service.url}/api/pricing`, pid: service.pid },
    { name: 'GET /api/ready', url: `${service.url}/api/ready`, pid: service.pid },
  ]
  for (const target of targets) await warm({ url: target.url, connections })
  const results = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) results.get(target.name)!.push(await load({ url: target.url, connections, pid: target.pid }))
  }
  const [bare, bareSame, pricing, ready] = targets.map((t) => median(results.get(t.name)!))
  report(`foundation (${connections} connections, loopback, PostgreSQL, median of ${rounds} rounds)`, bare!, [
    { name: 'bare Fastify, pricing body + headers', result: bareSame! },
    { name: 'GET /api/pricing', result: pricing! },
    { name: 'GET /api/ready', result: ready! },
  ])
  const perRound = results.get('GET /api/pricing')!.map((r, i) => `${((r.requestsPerSecond / results.get('baseline')![i]!.requestsPerSecond) * 100).toFixed(1)} %`)
  console.log(`\n/api/pricing reaches ${((pricing!.requestsPerSecond / bare!.requestsPerSecond) * 100).toFixed(1)} % of the baseline's req/s (target 85 %); by round: ${perRound.join(', ')}`)
  if (pricing!.cpuPerRequest && bare!.cpuPerRequest) {
    console.log(`server CPU per request: ${pricing!.cpuPerRequest.toFixed(1)} µs for /api/pricing, ${bare!.cpuPerRequest.toFixed(1)} µs for the baseline (${((bare!.cpuPerRequest / pricing!.cpuPerRequest) * 100).toFixed(1)} %)`)
  }
} finally {
  await service.stop()
  await samePayload.stop()
  await baseline.stop()
}
