// The sales assistant under load on real PostgreSQL with the built-in responder: session bootstrap,
// then chat turns (each request a new durable turn on one of many sessions), beside a bare Fastify
// hello-world. Target: 1000 turns/s or more and p99 under 50 ms at 32 connections.
import { randomBytes } from 'node:crypto'
import type autocannon from 'autocannon'
import { load, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const sessionCount = Number(process.env.BENCH_SESSIONS ?? 2000)
const questions = [
  'How much does the Pro plan cost?',
  'How do I connect my own domain?',
  'What does the SEO audit check?',
  'Do you offer webhooks?',
  'Can the assistant capture leads?',
  'How is my data protected?',
]

const baseline = await startBaseline()
const service = await startService()
try {
  const bootstrapBody = JSON.stringify({ url: '/en/pricing' })
  const json = { 'content-type': 'application/json' }

  // Sessions for the turn run, opened over HTTP like a widget would.
  const sessions: Array<{ session_id: string; session_token: string }> = []
  for (let i = 0; i < sessionCount; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, sessionCount - i) }, () =>
        fetch(`${service.url}/api/agent/bootstrap`, { method: 'POST', headers: json, body: bootstrapBody })
          .then((r) => r.json() as Promise<{ session_id: string; session_token: string }>)
          .then(({ session_id, session_token }) => ({ session_id, session_token })),
      ),
    )
    sessions.push(...batch)
  }

  let n = 0
  const prefix = randomBytes(4).toString('hex')
  const turnRequest: autocannon.Request = {
    method: 'POST',
    path: '/api/agent/chat',
    headers: json,
    setupRequest: (request) => {
      n += 1
      const session = sessions[n % sessions.length]!
      return { ...request, body: JSON.stringify({ ...session, turn_id: `b${prefix}${n.toString(36).padStart(8, '0')}`, message: questions[n % questions.length] }) }
    },
  }

  // One turn by hand first: a benchmark of refusals would measure nothing.
  const probe = await fetch(`${service.url}/api/agent/chat`, { method: 'POST', headers: json, body: JSON.stringify({ ...sessions[0], turn_id: `probe${prefix}`, message: questions[0] }) })
  if (probe.status !== 200) throw new Error(`a chat turn answered ${probe.status}: ${await probe.text()}`)

  await warm({ url: `${baseline.url}/`, connections })
  const bare = await load({ url: `${baseline.url}/`, connections, pid: baseline.pid })

  await warm({ url: service.url, connections, requests: [turnRequest] })
  const turns: LoadResult = await load({ url: service.url, connections, requests: [turnRequest], pid: service.pid })
  const bootstrap = await load({ url: `${service.url}/api/agent/bootstrap`, method: 'POST', headers: json, body: bootstrapBody, connections, pid: service.pid })

  report(`sales assistant (${connections} connections, loopback, PostgreSQL, built-in responder)`, bare, [
    { name: 'POST /api/agent/chat (new turns)', result: turns, unit: 'turns/s' },
    { name: 'POST /api/agent/bootstrap (create)', result: bootstrap },
  ])
  const ok = turns.requestsPerSecond >= 1000 && turns.p99 < 50
  console.log(`\nturns: ${turns.requestsPerSecond.toFixed(0)}/s, p50 ${turns.p50} ms, p99 ${turns.p99} ms (target ≥ 1000/s, p99 < 50 ms: ${ok ? 'met' : 'not met'})`)
  if (turns.cpuPerRequest) {
    // CPU per turn does not depend on how busy the rest of the machine is: the capacity of one core.
    console.log(`server CPU per turn: ${turns.cpuPerRequest.toFixed(0)} µs, i.e. about ${(1_000_000 / turns.cpuPerRequest).toFixed(0)} turns/s per core of the service process`)
    // Beside the hello-world's CPU per request of this same run, so runs on busier machines compare.
    if (bare.cpuPerRequest) console.log(`server CPU per turn vs hello-world: ${turns.cpuPerRequest.toFixed(0)} µs / ${bare.cpuPerRequest.toFixed(1)} µs per request = ${(turns.cpuPerRequest / bare.cpuPerRequest).toFixed(1)}×`)
  }
} finally {
  await service.stop()
  await baseline.stop()
}
