// The REST API on real PostgreSQL with authentication, quota, audit log and idempotency on, each
// route beside a bare Fastify + pg server doing the same database work and sending the same bytes
// and headers (same-work-server.ts), measured in the same rounds (BENCH_ROUNDS, medians):
//   GET /v1/sites (50 sites, API token): >= 0.5x the reference's req/s, p99 < 25 ms
//   PATCH /v1/blocks/{id} (validation, If-Match, audit, idempotency): >= 0.4x a bare
//     `update … returning` of the block, p99 < 40 ms
// The bare Fastify hello-world is printed beside them for scale.
import { randomBytes } from 'node:crypto'
import {
  benchAccountToken,
  compared,
  measureInTurn,
  median,
  repeatableHeaders,
  report,
  startBaseline,
  startSameWork,
  startService,
} from './lib.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const dataKey = randomBytes(32).toString('base64')

const bare = await startBaseline()
const service = await startService({ DATA_ENCRYPTION_KEY: dataKey })
const references: Array<{ stop(): Promise<void> }> = []
try {
  const { accountId, token } = await benchAccountToken(service.databaseUrl, dataKey, 'read:sites,write:pages')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    const text = await res.text()
    return { res, text, json: JSON.parse(text) as { id: string } }
  }
  const sites: string[] = []
  for (let i = 0; i < 50; i++) sites.push((await api('POST', '/v1/sites', { name: `Bench site ${i}` })).json.id)
  const page = (await api('POST', `/v1/sites/${sites[0]}/pages`, { path: '/', title: 'Home' })).json
  const block = (await api('POST', `/v1/pages/${page.id}/blocks`, { type: 'text', content: { markdown: 'Hello' } })).json

  const listPath = '/v1/sites?per_page=50'
  const patchBody = JSON.stringify({ content: { markdown: 'Hello again' } })
  const listed = await fetch(`${service.url}${listPath}`, { headers })
  const listBody = await listed.text()
  if (listed.status !== 200 || (JSON.parse(listBody) as { meta: { total: number } }).meta.total !== 50)
    throw new Error(`GET /v1/sites answered ${listed.status}: ${listBody.slice(0, 200)}`)
  const patched = (await api('PATCH', `/v1/blocks/${block.id}`, JSON.parse(patchBody))).res

  const config = { BASE_URL: `http://localhost:${new URL(service.url).port}`, SITES_DOMAIN: 'localhost' }
  const sitesReference = await startSameWork('sites', service.databaseUrl, {
    headers: repeatableHeaders(listed.headers),
    accountId,
    perPage: 50,
    config,
  })
  references.push(sitesReference)
  const patchReference = await startSameWork('patch', service.databaseUrl, {
    headers: repeatableHeaders(patched.headers),
    blockId: block.id,
  })
  references.push(patchReference)
  // The references must send what the service sends, byte for byte.
  const referenceList = await (await fetch(sitesReference.url)).text()
  if (referenceList !== listBody)
    throw new Error(`the reference lists other bytes than GET /v1/sites:\n${referenceList.slice(0, 300)}\n${listBody.slice(0, 300)}`)
  const referencePatch = await fetch(patchReference.url, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: patchBody,
  })
  const ourPatch = await api('PATCH', `/v1/blocks/${block.id}`, JSON.parse(patchBody))
  if (referencePatch.status !== 200 || (await referencePatch.text()) !== ourPatch.text)
    throw new Error('the reference answers a PATCH with other bytes')

  const results = await measureInTurn(
    {
      hello: { url: `${bare.url}/`, pid: bare.pid, connections },
      listReference: { url: sitesReference.url, pid: sitesReference.pid, connections },
      list: { url: `${service.url}${listPath}`, pid: service.pid, connections, headers },
      patchReference: {
        url: patchReference.url,
        pid: patchReference.pid,
        connections,
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: patchBody,
      },
      patch: { url: `${service.url}/v1/blocks/${block.id}`, pid: service.pid, connections, method: 'PATCH', headers, body: patchBody },
    },
    rounds,
  )
  report(
    `REST API (${connections} connections, loopback, PostgreSQL; auth, quota, audit log on; median of ${rounds} rounds)`,
    median(results.hello),
    [
      { name: 'bare Fastify + pg, same select + bytes', result: median(results.listReference) },
      { name: 'GET /v1/sites (50 sites)', result: median(results.list) },
      { name: 'bare Fastify + pg, same update', result: median(results.patchReference) },
      { name: 'PATCH /v1/blocks/{id}', result: median(results.patch) },
    ],
  )
  console.log('')
  console.log(compared('GET /v1/sites (50 sites)', results.list, results.listReference, { by: 'throughput', atLeast: 0.5, p99Below: 25 }))
  console.log(compared('PATCH /v1/blocks/{id}', results.patch, results.patchReference, { by: 'throughput', atLeast: 0.4, p99Below: 40 }))
} finally {
  // The reference servers hold connections to the service's database, which stopping the service drops.
  for (const reference of references) await reference.stop()
  await service.stop()
  await bare.stop()
}
