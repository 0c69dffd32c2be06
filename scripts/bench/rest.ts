// The REST API on real PostgreSQL with authentication, quota and audit log on: GET /v1/sites
// (50 sites, API token) and PATCH of a block, at 32 connections, beside GET /api/ready and a bare
// Fastify server making one database round trip per request, measured in the same run. Targets:
// GET /v1/sites at 0.5x /api/ready's req/s or more, p99 under 20 ms. /api/ready lets concurrent
// probes share one round trip, so under load it makes far fewer than one per request; the bare
// server's `select 1` per request is the reference for what one round trip costs here.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { load, median, report, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const root = fileURLToPath(new URL('../..', import.meta.url))
const dataKey = randomBytes(32).toString('base64')

const bare = await startBaseline()
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey })
const oneRoundTrip = await startBaseline('db', service.databaseUrl)
try {
  // The account and its token come from the admin CLI, on the running service's database.
  const admin = async (...args: string[]) => {
    const env = { ...process.env, DATABASE_URL: service.databaseUrl, DATA_ENCRYPTION_KEY: dataKey, NODE_ENV: 'production' }
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/admin.ts', ...args, '--json'], { cwd: root, env })
    return JSON.parse(stdout) as Record<string, string>
  }
  const account = await admin('account', 'create', '--email', 'bench@example.com', '--plan', 'max')
  await admin('account', 'set-quota', account['id']!, '100000000')
  const { token } = await admin('token', 'create', account['id']!, '--scopes', 'read:sites,write:pages', '--name', 'bench')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as { id: string }
  }
  const sites: string[] = []
  for (let i = 0; i < 50; i++) sites.push((await api('POST', '/v1/sites', { name: `Bench site ${i}` })).id)
  const page = await api('POST', `/v1/sites/${sites[0]}/pages`, { path: '/', title: 'Home' })
  const block = await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'Hello' } })

  const ready = { url: `${service.url}/api/ready`, pid: service.pid, connections }
  const list = { url: `${service.url}/v1/sites?per_page=50`, pid: service.pid, connections, headers }
  const patch = { url: `${service.url}/v1/blocks/${block.id}`, pid: service.pid, connections, method: 'PATCH', headers, body: JSON.stringify({ content: { markdown: 'Hello again' } }) }
  const check = await fetch(list.url, { headers })
  const listed = (await check.json()) as { meta: { total: number } }
  if (check.status !== 200 || listed.meta.total !== 50) throw new Error(`GET /v1/sites answered ${check.status} with ${listed.meta.total} sites`)

  const hello = { url: `${bare.url}/`, pid: bare.pid, connections }
  const roundTrip = { url: `${oneRoundTrip.url}/`, pid: oneRoundTrip.pid, connections }
  const targets = { hello, roundTrip, ready, list, patch }
  for (const target of Object.values(targets)) await warm(target)
  // The machine may be shared: the targets alternate over several rounds and medians are compared.
  const results = Object.fromEntries(Object.keys(targets).map((name) => [name, [] as LoadResult[]])) as Record<keyof typeof targets, LoadResult[]>
  for (let i = 0; i < rounds; i++) {
    for (const [name, target] of Object.entries(targets)) results[name as keyof typeof targets].push(await load(target))
  }
  const readyResult = median(results.ready)
  const roundTripResult = median(results.roundTrip)
  const sitesResult = median(results.list)
  report(`REST API (${connections} connections, loopback, PostgreSQL; auth, quota and audit log on)`, median(results.hello), [
    { name: 'bare Fastify, select 1 per request', result: roundTripResult },
    { name: 'GET /api/ready (shared probe)', result: readyResult },
    { name: 'GET /v1/sites (50 sites)', result: sitesResult },
    { name: 'PATCH /v1/blocks/{id}', result: median(results.patch) },
  ])
  const ratio = sitesResult.requestsPerSecond / readyResult.requestsPerSecond
  const ratioRoundTrip = sitesResult.requestsPerSecond / roundTripResult.requestsPerSecond
  console.log(`\nGET /v1/sites: ${ratio.toFixed(2)}x /api/ready (target >= 0.5), ${ratioRoundTrip.toFixed(2)}x one bare round trip per request, p99 ${sitesResult.p99} ms (target < 20 ms): ${ratio >= 0.5 && sitesResult.p99 < 20 ? 'met' : 'NOT met'}`)
} finally {
  // The reference server holds connections to the service's database, which stopping the service drops.
  await oneRoundTrip.stop()
  await service.stop()
  await bare.stop()
}
