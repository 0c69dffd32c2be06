import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { freshIp } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })
await createSite(app.db, { name: 'Shop', hostname: 'shop.example', settings: { assistant: { enabled: true } } })
await createSite(app.db, { name: 'Quiet', hostname: 'quiet.example', settings: { assistant: { enabled: false } } })
await createSite(app.db, { name: 'Gone', hostname: 'gone.example', status: 'offline', settings: { assistant: { enabled: true } } })

const preflight = (origin: string, url = '/api/agent/chat') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    remoteAddress: freshIp(),
  })

describe('CORS on /api/agent', () => {
  it('allows the origins of sites with the assistant enabled and BASE_URL', async () => {
    for (const origin of ['https://shop.example', 'https://platform.test']) {
      const res = await preflight(origin)
      expect(res.statusCode).toBe(204)
      expect(res.headers['access-control-allow-origin']).toBe(origin)
      expect(String(res.headers['access-control-allow-methods'])).toContain('POST')
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type')
      expect(res.headers['vary']).toMatch(/Origin/i)
    }
    const real = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { origin: 'https://shop.example' },
      payload: { url: 'https://shop.example/' },
      remoteAddress: freshIp(),
    })
    expect(real.statusCode).toBe(200)
    expect(real.headers['access-control-allow-origin']).toBe('https://shop.example')
  })

  it('allows nothing else: unknown sites, disabled assistants, offline sites, plain http, other ports, sub-domains', async () => {
    for (const origin of [
      'https://evil.example',
      'https://quiet.example',
      'https://gone.example',
      'http://shop.example',
      'https://shop.example:8443',
      'https://www.shop.example',
    ]) {
      const res = await preflight(origin)
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined()
    }
    const real = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { origin: 'https://evil.example' },
      payload: {},
      remoteAddress: freshIp(),
    })
    expect(real.headers['access-control-allow-origin']).toBeUndefined()
  })

  it("answers a sandboxed page's opaque origin, which opens a session only for its site's own preview", async () => {
    expect((await preflight('null')).headers['access-control-allow-origin']).toBe('null')
    const elsewhere = await app.inject({
      method: 'POST',
      url: '/api/agent/bootstrap',
      headers: { origin: 'null' },
      payload: { url: 'https://shop.example/' },
      remoteAddress: freshIp(),
    })
    expect(elsewhere.statusCode).toBe(404)
    expect(elsewhere.json()).toMatchObject({ error: 'feature-disabled' })
  })

  it('is scoped to /api/agent', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/pricing',
      headers: { origin: 'https://shop.example' },
      remoteAddress: freshIp(),
    })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})
