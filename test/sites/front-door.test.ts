import { request as httpRequest } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { imageAs } from '../helpers/images.ts'
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
  let account: Awaited<ReturnType<typeof makeAccount>>

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', API_URL: 'http://api.service.test' }, captureLogs: true })
    account = await makeAccount(t.app)
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

  // A media file is answered by the router (which reads whether it may be served) and, for a
  // moment after (MEDIA_FRESH_MS), again before the router with the same bytes.
  describe('media library files', () => {
    /** A new item of the bakery's account: the path of its widest WebP variant. */
    const uploaded = async (seed: number): Promise<{ id: string; path: string }> => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/media?filename=loaf-${seed}.jpg`,
        headers: { ...account.headers, 'content-type': 'image/jpeg' },
        payload: await imageAs('jpeg', 400 + seed, 300),
      })
      expect(res.statusCode).toBe(201)
      const media = res.json<{ id: string; variants: Array<{ url: string; format: string }> }>()
      return { id: media.id, path: new URL(media.variants.find((v) => v.format === 'webp')!.url).pathname }
    }

    const hosts: Array<[string, string]> = [
      ['a site’s host', HOST],
      ['the service’s own host', 'service.test'],
    ]
    for (const [where, host] of hosts) {
      it(`on ${where}: the same status, headers in the same order, and body, for GET, HEAD, a query and a 304`, async () => {
        const { path } = await uploaded(host === HOST ? 1 : 2)
        const etag = `"${path.split('/')[2]}/${path.split('/')[3]}"`
        const variants: Array<[string, string, Record<string, string>]> = [
          ['GET', path, {}],
          ['HEAD', path, {}],
          ['GET', `${path}?v=1`, {}],
          ['GET', path, { 'if-none-match': etag }],
        ]
        for (const [method, target, extra] of variants) {
          const headers = { host, 'x-request-id': 'lb-m', ...extra }
          // The router's answer first, then the one given again from memory.
          const routed = await injected(method, target, headers)
          const direct = await overHttp(method, target, headers)
          expect(direct).toEqual(routed)
          expect(routed.status).toBe(extra['if-none-match'] ? 304 : 200)
        }
        expect(t.logs.filter((l) => l['reqId'] === 'lb-m').map((l) => [l['route'], l['operation']])).toContainEqual(
          host === HOST ? ['hosted site', 'sites.page'] : ['/_media/*', 'sites.media'],
        )
      })
    }

    it('stops answering an item gone from the database within a second', async () => {
      const { id, path } = await uploaded(3)
      expect((await overHttp('GET', path, { host: HOST })).status).toBe(200)
      const gone = performance.now()
      await t.app.db.deleteFrom('media').where('id', '=', id).execute()
      await expect.poll(async () => (await overHttp('GET', path, { host: HOST })).status, { timeout: 5_000, interval: 50 }).toBe(404)
      // Within the freshness bound, plus what a busy machine adds to each request.
      expect(performance.now() - gone).toBeLessThan(3_000)
      expect((await injected('GET', path, { host: HOST })).status).toBe(404)
    })
  })
})
