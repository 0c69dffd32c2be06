import { request as httpRequest } from 'node:http'
import { brotliDecompressSync } from 'node:zlib'
import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { makeAccount, oauthToken, type TestAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: string
}

/** One request over a real connection, with the Host header a browser would send for `host`. */
function hostGet(base: string, host: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const { port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

function api(base: string, account: TestAccount) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...account.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : null) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
  }
}

describe('platform subdomains with SITES_DOMAIN', () => {
  let t: LiveApp
  let owner: TestAccount
  let call: ReturnType<typeof api>

  beforeAll(async () => {
    t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
    // Max: no limit on sites, and the assistant add-on for the widget's checks.
    owner = await makeAccount(t.app, 'max')
    await setAddOn(t.app.db, { accountId: owner.accountId, addOn: 'ai_sales_assistant', on: true })
    call = api(t.base, owner)
  }, SETUP_TIMEOUT_MS)

  it('gives every new site a unique subdomain from its name, shown on /v1 and over MCP', async () => {
    const first = await call('POST', '/v1/sites', { name: 'Bäckerei Sonne', assistant: { enabled: true, persona: 'Sonja' } })
    expect(first.status).toBe(201)
    expect(first.json['subdomain']).toBe('backerei-sonne.sites.test')
    const second = await call('POST', '/v1/sites', { name: 'Bäckerei  SONNE!' })
    expect(second.json['subdomain']).toBe('backerei-sonne-2.sites.test')
    const reserved = await call('POST', '/v1/sites', { name: 'API' })
    expect(reserved.json['subdomain']).toBe('api-site.sites.test')
    const nothing = await call('POST', '/v1/sites', { name: '東京' })
    expect(nothing.json['subdomain']).toMatch(/^site(-\d+)?\.sites\.test$/)
    // Creations at the same moment never share a subdomain.
    const racing = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/v1/sites', { name: 'Race' })))
    expect(new Set(racing.map((r) => r.json['subdomain'])).size).toBe(5)
    const listed = await call('GET', '/v1/sites?per_page=100')
    expect(listed.json['data'].map((s: { subdomain: string }) => s.subdomain)).toEqual(
      expect.arrayContaining(['backerei-sonne.sites.test', 'backerei-sonne-2.sites.test']),
    )

    const { token } = await oauthToken(t.app, owner.accountId, ['mcp:read', 'mcp:tools'], `${t.base}/mcp`)
    const mcp = await connect(t.base, token)
    const got = await mcp.callTool({ name: 'get_site', arguments: { site_id: first.json['id'] } })
    expect(got.isError, textOf(got)).toBeFalsy()
    expect(got.structuredContent).toMatchObject({ id: first.json['id'], subdomain: 'backerei-sonne.sites.test' })
    const changed = await mcp.callTool({ name: 'update_site', arguments: { site_id: first.json['id'], subdomain: 'sonne' } })
    expect(changed.isError, textOf(changed)).toBeFalsy()
    expect(changed.structuredContent).toMatchObject({ subdomain: 'sonne.sites.test' })
    const taken = await mcp.callTool({ name: 'update_site', arguments: { site_id: second.json['id'], subdomain: 'sonne.sites.test' } })
    expect(taken.isError).toBe(true)
    expect(textOf(taken)).toMatch(/already taken/)
    const resource = await mcp.readResource({ uri: `wps://sites/${first.json['id']}` })
    expect((resource.contents[0] as { text: string }).text).toContain('- subdomain: sonne.sites.test')
    await mcp.close()

    // The assistant knows the site by its subdomain, and the widget may call from that origin.
    const bootstrap = await fetch(`${t.base}/api/agent/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://sonne.sites.test' },
      body: JSON.stringify({ url: 'https://sonne.sites.test/' }),
    })
    expect(bootstrap.status).toBe(200)
    expect(bootstrap.headers.get('access-control-allow-origin')).toBe('https://sonne.sites.test')
    expect(await bootstrap.json()).toMatchObject({ persona: 'Sonja' })
    const unknown = await fetch(`${t.base}/api/agent/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://nobody.sites.test' },
      body: JSON.stringify({ url: 'https://nobody.sites.test/' }),
    })
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('changes the subdomain with PATCH (label or full host), refusing a taken, reserved or malformed one with nothing changed', async () => {
    const a = (await call('POST', '/v1/sites', { name: 'Alpha Garden' })).json
    const b = (await call('POST', '/v1/sites', { name: 'Beta Garden' })).json
    const renamed = await call('PATCH', `/v1/sites/${a['id']}`, { subdomain: 'Garden.sites.test' })
    expect(renamed.status).toBe(200)
    expect(renamed.json).toMatchObject({ subdomain: 'garden.sites.test', name: 'Alpha Garden' })

    const taken = await call('PATCH', `/v1/sites/${b['id']}`, { subdomain: 'garden', name: 'Not stored' })
    expect(taken.status).toBe(409)
    expect(taken.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(taken.json).toMatchObject({ status: 409, code: 'subdomain_taken' })
    for (const [subdomain, status, code] of [
      ['www', 409, 'subdomain_taken'],
      ['-bad-', 400, 'invalid_subdomain'],
      ['two.labels', 400, 'invalid_subdomain'],
      ['x'.repeat(64), 400, 'invalid_subdomain'],
      ['other.example.com', 400, 'invalid_subdomain'],
    ] as const) {
      const refused = await call('PATCH', `/v1/sites/${b['id']}`, { subdomain })
      expect([subdomain, refused.status, refused.json['code']]).toEqual([subdomain, status, code])
    }
    const unchanged = await call('GET', `/v1/sites/${b['id']}`)
    expect(unchanged.json).toMatchObject({ name: 'Beta Garden', subdomain: 'beta-garden.sites.test' })

    // If-Match guards a subdomain change like any other.
    const stale = await call('PATCH', `/v1/sites/${b['id']}`, { subdomain: 'beta' }, { 'if-match': '"stale"' })
    expect(stale.status).toBe(412)
    const fresh = await call('PATCH', `/v1/sites/${b['id']}`, { subdomain: 'beta' }, { 'if-match': unchanged.headers.get('etag')! })
    expect(fresh.json['subdomain']).toBe('beta.sites.test')

    // Another account's site is not found, and its subdomain is left alone.
    const stranger = api(t.base, await makeAccount(t.app, 'pro'))
    expect((await stranger('PATCH', `/v1/sites/${b['id']}`, { subdomain: 'mine' })).status).toBe(404)
  })

  it("refuses a domain under SITES_DOMAIN as a site's own domain", async () => {
    const site = (await call('POST', '/v1/sites', { name: 'Domain Probe' })).json
    const refused = await call('POST', `/v1/sites/${site['id']}/domains`, { hostname: 'someone-else.sites.test' })
    expect(refused.status).toBe(400)
    expect(refused.json['code']).toBe('invalid_hostname')
  })

  describe('serving', () => {
    let site: Site
    let host: string

    beforeAll(async () => {
      site = await bakerySite(t.app, { accountId: owner.accountId })
      host = `${site.slug}.sites.test`
      expect(host).toBe('hansen-bakery.sites.test')
      // A draft site's subdomain serves nothing and gets no certificate.
      expect((await hostGet(t.base, host, '/')).status).toBe(404)
      expect((await hostGet(t.base, '127.0.0.1', `/internal/tls-allowed?domain=${host}`)).status).toBe(404)
      expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
      await eventually(async () => expect(t.app.liveSites.byHost(host)).toBeDefined())
    }, SETUP_TIMEOUT_MS)

    it('serves the published site by Host on its subdomain, canonical there, with sitemap and llms.txt', async () => {
      const home = await hostGet(t.base, host, '/')
      expect(home.status).toBe(200)
      expect(home.headers['content-type']).toBe('text/html; charset=utf-8')
      const $ = cheerio.load(home.text)
      expect($('link[rel=canonical]').attr('href')).toBe(`https://${host}/`)
      expect((await hostGet(t.base, host, '/de/about')).status).toBe(200)
      expect((await hostGet(t.base, host, '/sitemap.xml')).text).toContain(`<loc>https://${host}/de/about</loc>`)
      expect((await hostGet(t.base, host, '/llms.txt')).text).toMatch(/^# Hansen Bakery\n[\s\S]*https:\/\/hansen-bakery\.sites\.test\//)
      expect((await hostGet(t.base, host, '/robots.txt')).text).toContain(`Sitemap: https://${host}/sitemap.xml`)
      expect((await hostGet(t.base, host, '/no-such-page')).status).toBe(404)
      expect((await hostGet(t.base, host.toUpperCase(), '/')).status).toBe(200)
      const event = await t.app.db
        .selectFrom('events')
        .select('data')
        .where('site_id', '=', site.id)
        .where('type', '=', 'site.published')
        .executeTakeFirstOrThrow()
      expect(event.data).toMatchObject({ url: `https://${host}/` })
    })

    it('answers 304 to a known ETag, the br copy to a client that accepts it, HEAD without a body', async () => {
      const first = await hostGet(t.base, host, '/about')
      const etag = first.headers['etag'] as string
      expect(etag).toMatch(/^"/)
      const again = await hostGet(t.base, host, '/about', { 'if-none-match': etag })
      expect(again.status).toBe(304)
      expect(again.body.length).toBe(0)
      const br = await hostGet(t.base, host, '/about', { 'accept-encoding': 'br, gzip' })
      expect(br.headers['content-encoding']).toBe('br')
      expect(brotliDecompressSync(br.body).toString('utf8')).toBe(first.text)
      const head = await hostGet(t.base, host, '/about', {}, 'HEAD')
      expect(head.status).toBe(200)
      expect(head.body.length).toBe(0)
      expect(Number(head.headers['content-length'])).toBe(first.body.length)
    })

    it("allows a certificate for a live site's subdomain, not for an unknown one", async () => {
      const allowed = await hostGet(t.base, '127.0.0.1', `/internal/tls-allowed?domain=${host}`)
      expect(allowed.status).toBe(200)
      expect(JSON.parse(allowed.text)).toEqual({ allowed: true })
      expect((await hostGet(t.base, '127.0.0.1', '/internal/tls-allowed?domain=nobody.sites.test')).status).toBe(404)
      expect((await hostGet(t.base, '127.0.0.1', '/internal/tls-allowed?domain=sites.test')).status).toBe(404)
    })

    it('takes a changed subdomain into service at once and drops the old one', async () => {
      const renamed = await call('PATCH', `/v1/sites/${site.id}`, { subdomain: 'hansen' })
      expect(renamed.status).toBe(200)
      await eventually(async () => {
        expect((await hostGet(t.base, 'hansen.sites.test', '/')).status).toBe(200)
        expect((await hostGet(t.base, host, '/')).status).toBe(404)
      })
      expect((await hostGet(t.base, '127.0.0.1', '/internal/tls-allowed?domain=hansen.sites.test')).status).toBe(200)
      expect((await hostGet(t.base, '127.0.0.1', `/internal/tls-allowed?domain=${host}`)).status).toBe(404)
      // Taken offline, the subdomain stops serving too.
      expect((await call('PATCH', `/v1/sites/${site.id}`, { status: 'offline' })).status).toBe(200)
      await eventually(async () => expect((await hostGet(t.base, 'hansen.sites.test', '/')).status).toBe(404))
    })
  })
})

describe('platform subdomains without SITES_DOMAIN', () => {
  it("serves a site on {slug}.localhost, canonical with the service's scheme and port", { timeout: SETUP_TIMEOUT_MS }, async () => {
    const t = await startLiveApp()
    const owner = await makeAccount(t.app, 'pro')
    const site = await bakerySite(t.app, { accountId: owner.accountId })
    expect((await api(t.base, owner)('GET', `/v1/sites/${site.id}`)).json['subdomain']).toBe('hansen-bakery.localhost')
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    const host = `hansen-bakery.localhost:${new URL(t.base).port}`
    await eventually(async () => expect((await hostGet(t.base, host, '/')).status).toBe(200))
    const home = await hostGet(t.base, host, '/')
    expect(cheerio.load(home.text)('link[rel=canonical]').attr('href')).toBe(`http://${host}/`)
    expect((await hostGet(t.base, host, '/sitemap.xml')).text).toContain(`<loc>http://${host}/about</loc>`)
  })
})
