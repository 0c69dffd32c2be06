import { request as httpRequest } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'

const HOST = 'bakery.example'

interface Answer {
  status: number
  headers: Array<[string, string]>
  body: Buffer
}

/** The headers an answer carries in order, without those of the connection and the moment. */
function repeatable(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!])
  return pairs.filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name))
}

// A published site's pages are answered before the router over a real connection, and by the
// sites plugin's hook for injected requests and everything the early answer leaves to the router:
// both must send the same bytes and write the same access line.
describe('hosted sites: the answer made before the router', () => {
  let t: TestApp
  let base: URL

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', API_URL: 'http://api.service.test' }, captureLogs: true })
    const account = await makeAccount(t.app)
    const site = await bakerySite(t.app, { accountId: account.accountId, hostname: HOST })
    expect(await buildSite(t.app, site.id)).toMatchObject({ status: 'succeeded' })
    base = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }))
    // The first request of a release loads it (through the router); the early answer serves it from then on.
    expect((await t.app.inject({ method: 'GET', url: '/', headers: { host: HOST } })).statusCode).toBe(200)
  }, SETUP_TIMEOUT_MS)

  const overHttp = (method: string, path: string, headers: Record<string, string>): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: repeatable(res.rawHeaders), body: Buffer.concat(chunks) }))
      })
      req.on('error', reject).end()
    })
  const injected = async (method: string, path: string, headers: Record<string, string>): Promise<Answer> => {
    const res = await t.app.inject({ method: method as 'GET', url: path, headers })
    // The header block as it was written, in order.
    const block = (res.raw.res as unknown as { _header: string })._header.split('\r\n').slice(1).filter(Boolean)
    return {
      status: res.statusCode,
      headers: repeatable(block.flatMap((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])),
      body: res.rawPayload,
    }
  }

  const cases: Array<[string, string, Record<string, string>]> = [
    ['GET', '/', {}],
    ['HEAD', '/about', { 'accept-encoding': 'gzip' }],
    ['GET', '/about', { 'accept-encoding': 'gzip, deflate, br' }],
    ['GET', '/about?ref=1', { 'accept-encoding': 'gzip' }],
    ['GET', '/no-such-page', {}],
    ['GET', '/about/', {}],
    ['GET', '/', { 'x-request-id': 'not a valid id' }],
  ]
  for (const [method, path, extra] of cases) {
    it(`${method} ${path} ${JSON.stringify(extra)}: the same status, headers in the same order, and body`, async () => {
      const headers = { host: HOST, 'x-request-id': 'lb-1', ...extra }
      const direct = await overHttp(method, path, headers)
      const routed = await injected(method, path, headers)
      const masked = (a: Answer) => ({
        ...a,
        headers: a.headers.map(([name, value]) => [name, name === 'x-request-id' && value !== 'lb-1' ? 'fresh' : value]),
      })
      expect(masked(direct)).toEqual(masked(routed))
      expect(direct.headers[0]![0]).toBe('x-request-id')
    })
  }

  it('answers 304 the same way, and keeps a well-formed incoming request id', async () => {
    const etag = (await overHttp('GET', '/about', { host: HOST })).headers.find(([name]) => name === 'etag')![1]
    const headers = { host: HOST, 'if-none-match': etag, 'x-request-id': 'lb-2' }
    const direct = await overHttp('GET', '/about', headers)
    expect(direct.status).toBe(304)
    expect(direct).toEqual(await injected('GET', '/about', headers))
  })

  it('writes one access line per page, naming it a hosted page', async () => {
    await overHttp('GET', '/about', { host: HOST, 'x-request-id': 'lb-3' })
    await t.app.inject({ method: 'GET', url: '/about', headers: { host: HOST, 'x-request-id': 'lb-4' } })
    for (const reqId of ['lb-3', 'lb-4']) {
      await expect.poll(() => t.logs.filter((l) => l['reqId'] === reqId)).toHaveLength(1)
      expect(t.logs.find((l) => l['reqId'] === reqId)).toMatchObject({
        msg: 'request',
        method: 'GET',
        route: 'hosted site',
        operation: 'sites.page',
        status: 200,
        level: 30,
      })
    }
  })

  it('leaves the service’s own hosts and other methods to the router', async () => {
    expect((await overHttp('GET', '/api/pricing', { host: 'service.test' })).status).toBe(200)
    const post = await overHttp('POST', '/about', { host: HOST })
    expect(post.status).toBe(405)
  })
})
