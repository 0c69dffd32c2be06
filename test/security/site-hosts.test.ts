import { request } from 'undici'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'

/** What a site's hosts answer about the service's own security: HSTS scope, reserved names, previews. */
let t: TestApp
let base: string
let siteId: string
const HOST = 'bakery-apex.example'

const get = async (path: string, host: string) => {
  const res = await request(`${base}${path}`, { headers: { host } })
  await res.body.dump()
  return res
}

beforeAll(async () => {
  t = await buildTestApp({ env: { BASE_URL: 'http://service.test' } })
  const owner = await makeAccount(t.app)
  const site = await bakerySite(t.app, { accountId: owner.accountId, hostname: HOST })
  siteId = site.id
  expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
  base = await t.app.listen({ port: 0, host: '127.0.0.1' })
}, SETUP_TIMEOUT_MS)

describe('Strict-Transport-Security', () => {
  it("binds a site's own domain alone, never the customer's other subdomains; the service keeps includeSubDomains", async () => {
    for (const path of ['/', '/contact', '/no-such-page']) {
      const res = await get(path, HOST)
      expect(res.headers['strict-transport-security'], path).toBe('max-age=31536000')
    }
    const service = await get('/api/ready', 'service.test')
    expect(service.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains')
  })
})

describe('previews on the service origin', () => {
  it('are sandboxed, so owner content never acts on the dashboard origin', async () => {
    const res = await get(`/s/${siteId}/`, 'service.test')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-security-policy']).toMatch(
      /; sandbox allow-forms allow-scripts allow-popups allow-popups-to-escape-sandbox/,
    )
    expect(res.headers['content-security-policy']).not.toMatch(/allow-same-origin/)
    // The service's own HSTS, with includeSubDomains, on its own origin.
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains')
    // The site on its own host is not sandboxed.
    expect((await get('/', HOST)).headers['content-security-policy']).not.toMatch(/sandbox/)
  })
})

describe('reserved subdomains', () => {
  it('keep names a phishing page would like to wear for the service', async () => {
    const owner = await makeAccount(t.app)
    for (const name of ['Login', 'SSO', 'Billing', 'Pay', 'Webmail', 'Autodiscover', 'Secure', 'Account', 'Support', 'Status']) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/sites', headers: owner.headers, payload: { name } })
      expect(res.statusCode, name).toBe(201)
      expect(res.json().subdomain, name).toBe(`${name.toLowerCase()}-site.localhost`)
    }
    const other = await makeAccount(t.app)
    const made = await t.app.inject({ method: 'POST', url: '/v1/sites', headers: other.headers, payload: { name: 'Bakery' } })
    expect(made.statusCode, made.body).toBe(201)
    const site = made.json()
    const taken = await t.app.inject({
      method: 'PATCH',
      url: `/v1/sites/${site.id}`,
      headers: other.headers,
      payload: { subdomain: 'billing' },
    })
    expect(taken.statusCode, taken.body).toBe(409)
    expect(taken.json()).toMatchObject({ code: 'subdomain_taken' })
  })
})
