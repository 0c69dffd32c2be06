// GET /api/pricing and GET /api/ready on real PostgreSQL, beside a bare Fastify hello-world.
// Target: /api/pricing at 85 % or more of the baseline's req/s with helmet, rate limiting and logging on.
import { load, report, startBaseline, startService, warm } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const baseline = await startBaseline()
const samePayload = await startBaseline('pricing')
const service = await startService()
try {
  await warm({ url: `${baseline.url}/`, connections })
  const bare = await load({ url: `${baseline.url}/`, connections, pid: baseline.pid })
  await warm({ url: `${samePayload.url}/`, connections })
  const bareSame = await load({ url: `${samePayload.url}/`, connections, pid: samePayload.pid })
  await warm({ url: `${service.url}/api/pricing`, connections })
  const pricing = await load({ url: `${service.url}/api/pricing`, connections, pid: service.pid })
  const ready = await load({ url: `${service.url}/api/ready`, connections, pid: service.pid })
  report(`foundation (${connections} connections, loopback, PostgreSQL)`, bare, [
    { name: 'bare Fastify, pricing body + headers', result: bareSame },
    { name: 'GET /api/pricing', result: pricing },
    { name: 'GET /api/ready', result: ready },
  ])
  const ratio = pricing.requestsPerSecond / bare.requestsPerSecond
  console.log(`\n/api/pricing reaches ${(ratio * 100).toFixed(1)} % of the baseline's req/s (target 85 %)`)
  if (pricing.cpuPerRequest && bare.cpuPerRequest) {
    console.log(`server CPU per request: ${pricing.cpuPerRequest.toFixed(1)} µs for /api/pricing, ${bare.cpuPerRequest.toFixed(1)} µs for the baseline (${((bare.cpuPerRequest / pricing.cpuPerRequest) * 100).toFixed(1)} %)`)
  }
} finally {
  await service.stop()
  await samePayload.stop()
  await baseline.stop()
}
