// MCP tools/call of get_site (authenticated, read from PostgreSQL, quota counted, audit logged)
// beside a minimal server built with the same SDK whose get_site reads the same row with the same
// select and answers the same site view under the same output schema, without authentication,
// quota or audit log (BENCH_ROUNDS rounds, each target in turn; medians printed). Targets: at
// least 0.7x that server's calls/s, p99 under 30 ms. The same minimal server answering a constant
// (no database) is printed beside them.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { request as send } from 'undici'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { newId } from '../../src/infra/crypto.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'
import { compared, load, median, profiled, report, runtimeFlags, startBaseline, startService, warm, type LoadResult } from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const MODERN = '2026-07-28'

async function startMinimal(database: string[] = []) {
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const profile = profiled(`mcp-minimal-${database.length ? 'db' : 'constant'}`)
  const child = spawn(
    process.execPath,
    [...runtimeFlags, ...profile, fileURLToPath(new URL('./mcp-minimal-server.ts', import.meta.url)), String(port), ...database],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${url}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

/** A tools/call of the 2026-07-28 revision: the per-request envelope in _meta, the version in the header. */
function toolCall(siteId: string) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_site',
      arguments: { site_id: siteId },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  })
}

const key = randomBytes(32).toString('base64')
const baseline = await startBaseline()
const minimal = await startMinimal()
const service = await startService({ DATA_ENCRYPTION_KEY: key })
let minimalDb: Awaited<ReturnType<typeof startMinimal>> | undefined
try {
  // The service answers for BASE_URL's host only (DNS rebinding); it runs with the default, localhost.
  const port = new URL(service.url).port
  const base = `http://localhost:${port}`
  // A max-plan account with one site, and an access token for it, made with the service's own keys.
  const setup = await buildApp(
    loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATABASE_URL: service.databaseUrl,
      DATA_ENCRYPTION_KEY: key,
      BASE_URL: base,
      JOB_CONCURRENCY: '0',
    }),
  )
  const accountId = newId('acct')
  await setup.db.insertInto('accounts').values({ id: accountId }).execute()
  await updateAccount(setup.db, accountId, { plan: 'max', quotaOverride: 100_000_000 })
  const site = await createAccountSite(setup.db, accountId, { name: 'Bench site' })
  const { token } = await signAccessToken(setup.signer, {
    subject: 'usr_bench',
    clientId: 'bench',
    audience: `${base}/mcp`,
    scope: ['mcp:read', 'mcp:tools'],
    accountId,
  })
  await setup.close()
  minimalDb = await startMinimal([service.databaseUrl, accountId, base, 'localhost'])

  const body = toolCall(site.id)
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'get_site',
  }
  const serviceRequest = {
    url: `${service.url}/mcp`,
    method: 'POST',
    body,
    headers: { ...headers, host: `localhost:${port}`, authorization: `Bearer ${token}` },
    pid: service.pid,
    connections,
  }
  const minimalRequest = { url: `${minimal.url}/mcp`, method: 'POST', body, headers, pid: minimal.pid, connections }
  const minimalDbRequest = { ...minimalRequest, url: `${minimalDb.url}/mcp`, pid: minimalDb.pid }

  const structured: Record<string, string> = {}
  for (const [name, request] of [
    ['service', serviceRequest],
    ['minimal', minimalRequest],
    ['minimal with database', minimalDbRequest],
  ] as const) {
    // undici's request, unlike fetch, sends the Host header given.
    const res = await send(request.url, { method: 'POST', headers: request.headers, body })
    const text = await res.body.text()
    if (res.statusCode !== 200 || !text.includes('"structuredContent"') || text.includes('"isError":true'))
      throw new Error(`${name} answered ${res.statusCode}: ${text.slice(0, 300)}`)
    structured[name] = JSON.stringify(
      (JSON.parse(text.replace(/^(event: [^\n]*\n)?data: /, '')) as { result: { structuredContent: unknown } }).result.structuredContent,
    )
  }
  if (structured['service'] !== structured['minimal with database'])
    throw new Error(`the minimal server answers another site view:\n${structured['minimal with database']}\n${structured['service']}`)

  const targets = [
    { name: 'bare Fastify hello-world', request: { url: `${baseline.url}/`, pid: baseline.pid, connections } },
    { name: 'minimal SDK server, constant tool', request: minimalRequest },
    { name: 'minimal SDK server, same select + view', request: minimalDbRequest },
    { name: '/mcp tools/call get_site', request: serviceRequest },
  ]
  for (const target of targets) await warm(target.request)
  const runs = targets.map((): LoadResult[] => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) runs[i]!.push(await load(target.request))
  }
  const [bare, small, smallDb, ours] = runs.map(median) as [LoadResult, LoadResult, LoadResult, LoadResult]
  report(`MCP (${connections} connections, loopback, PostgreSQL, revision ${MODERN}, median of ${rounds} rounds)`, bare, [
    { name: targets[1]!.name, result: small, unit: 'calls/s' },
    { name: targets[2]!.name, result: smallDb, unit: 'calls/s' },
    { name: targets[3]!.name, result: ours, unit: 'calls/s' },
  ])
  console.log('')
  console.log(compared('MCP get_site', runs[3]!, runs[2]!, { by: 'throughput', atLeast: 0.7, p99Below: 30 }))
  console.log(
    `beside the minimal server answering a constant: ${(ours.requestsPerSecond / small.requestsPerSecond).toFixed(2)}x its calls/s`,
  )
} finally {
  await minimalDb?.stop()
  await service.stop()
  await minimal.stop()
  await baseline.stop()
}
