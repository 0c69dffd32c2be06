// GET /api/pricing and GET /api/ready on real PostgreSQL, beside a bare Fastify hello-world and a
// bare Fastify server sending the pricing body with the same headers. Target: /api/pricing's
// server CPU per request at most 1.3x the latter's, with request ids, helmet's headers, rate
// limiting and the access log on: the shared per-request path is what the ratio measures.
// BENCH_ROUNDS rounds (default 3) measure every target side by side, in slices taking turns
// (measureSideBySide), so the machine's changes of speed fall on all of them alike; each figure
// printed is the median round.
import { compared, measureSideBySide, median, middle, report, startBaseline, startService } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const baseline = await startBaseline()
const samePayload = await startBaseline('pricing')
const service = await startService()
try {
  const results = await measureSideBySide(
    {
      hello: { url: `${baseline.url}/`, connections, pid: baseline.pid },
      same: { url: `${samePayload.url}/`, connections, pid: samePayload.pid },
      pricing: { url: `${service.url}/api/pricing`, connections, pid: service.pid },
      ready: { url: `${service.url}/api/ready`, connections, pid: service.pid },
    },
    rounds,
  )
  report(`foundation (${connections} connections, loopback, PostgreSQL, median of ${rounds} rounds)`, median(results.hello), [
    { name: 'bare Fastify, pricing body + headers', result: median(results.same) },
    { name: 'GET /api/pricing', result: median(results.pricing) },
    { name: 'GET /api/ready', result: median(results.ready) },
  ])
  console.log('')
  // At most 1.3x the reference's CPU per request is at least 1/1.3 of its efficiency.
  console.log(compared('GET /api/pricing', results.pricing, results.same, { by: 'cpu', atLeast: 1 / 1.3 }))
  const cpu = (name: keyof typeof results) => middle(results[name].map((r) => r.cpuPerRequest ?? NaN))
  console.log(
    `server CPU per request: /api/pricing ${cpu('pricing').toFixed(1)} µs = ${(cpu('pricing') / cpu('same')).toFixed(2)}x the same body and headers' ${cpu('same').toFixed(1)} µs (target at most 1.3x); hello-world ${cpu('hello').toFixed(1)} µs`,
  )
} finally {
  await service.stop()
  await samePayload.stop()
  await baseline.stop()
}
