import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'

// Many clients send `Content-Type: application/json` on every request, bodiless ones included.
// On /v1 an empty body under that header counts as no body: actions without required fields run,
// routes that need a body still answer validation_failed, and broken JSON stays malformed_json.
// Over real HTTP, so the headers are what a client puts on the wire.

const { app } = await buildTestApp({ env: { JOB_CONCURRENCY: '0' } })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
const owner = await makeAccount(app, 'pro')
await withAssistantAddOn(app.db, owner.accountId)

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8']

async function call(method: string, path: string, init: { contentType?: string; body?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...owner.headers, ...init.headers }
  if (init.contentType !== undefined) headers['content-type'] = init.contentType
  const res = await fetch(`${base}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> }
}

async function newSite(hostname?: string) {
  const site = await createSite(app.db, {
    name: 'Bodiless',
    accountId: owner.accountId,
    ...(hostname ? { hostname, settings: { assistant: { enabled: true, capabilities: { handoff: true } } } } : {}),
  })
  return site.id
}

describe('bodiless /v1 requests with Content-Type: application/json', () => {
  it.each(JSON_TYPES)('DELETE of a site, a page, a block and a domain succeeds (%s)', async (contentType) => {
    const siteId = await newSite()
    const page = (
      await call('POST', `/v1/sites/${siteId}/pages`, { contentType, body: JSON.stringify({ path: '/', title: 'Home' }) })
    ).json()
    const block = (
      await call('POST', `/v1/pages/${String(page['id'])}/blocks`, {
        contentType,
        body: JSON.stringify({ type: 'text', content: { markdown: 'Hi' } }),
      })
    ).json()
    const domain = (
      await call('POST', `/v1/sites/${siteId}/domains`, {
        contentType,
        body: JSON.stringify({ hostname: `d${Date.now()}.bodiless.example` }),
      })
    ).json()
    for (const path of [
      `/v1/blocks/${String(block['id'])}`,
      `/v1/domains/${String(domain['id'])}`,
      `/v1/pages/${String(page['id'])}`,
      `/v1/sites/${siteId}`,
    ]) {
      const res = await call('DELETE', path, { contentType })
      expect(res.status, `DELETE ${path}: ${res.text}`).toBe(204)
    }
    // With an explicit empty body (Content-Length: 0) as well.
    const another = await newSite()
    const res = await call('DELETE', `/v1/sites/${another}`, { contentType, body: '' })
    expect(res.status, res.text).toBe(204)
  })

  it('POST actions without a body run: rebuild, verify, rotate, take and resolve', async () => {
    const contentType = 'application/json'
    const siteId = await newSite('help.bodiless.example')
    const rebuilt = await call('POST', `/v1/sites/${siteId}/rebuild`, { contentType })
    expect(rebuilt.status, rebuilt.text).toBe(202)

    const domain = (
      await call('POST', `/v1/sites/${siteId}/domains`, { contentType, body: JSON.stringify({ hostname: 'www.bodiless.example' }) })
    ).json()
    const verify = await call('POST', `/v1/domains/${String(domain['id'])}/verify`, { contentType, body: '' })
    expect(verify.status, verify.text).toBe(202)

    const spare = (
      await call('POST', '/v1/tokens', { contentType, body: JSON.stringify({ name: 'spare', scopes: ['read:sites'] }) })
    ).json()
    const rotated = await call('POST', `/v1/tokens/${String(spare['id'])}/rotate`, { contentType })
    expect(rotated.status, rotated.text).toBe(200)
    expect(Date.parse(String(rotated.json()['previous_secret_expires_at'])) - Date.now()).toBeGreaterThan(3_500_000)

    const session = await bootstrap(app, { url: 'https://help.bodiless.example/' })
    expect((await chat(app, session, 'Can I talk to a human please?')).json().handoff.state).toBe('requested')
    const taken = await call('POST', `/v1/conversations/${session.session_id}/take`, { contentType })
    expect(taken.status, taken.text).toBe(200)
    const resolved = await call('POST', `/v1/conversations/${session.session_id}/resolve`, { contentType })
    expect(resolved.status, resolved.text).toBe(200)
    expect((resolved.json()['handoff'] as { state: string }).state).toBe('resolved')
  })

  it('a bodiless action with an Idempotency-Key is replayed like any other', async () => {
    const siteId = await newSite()
    const headers = { 'idempotency-key': `rebuild-${siteId}` }
    const first = await call('POST', `/v1/sites/${siteId}/rebuild`, { contentType: 'application/json', headers })
    const again = await call('POST', `/v1/sites/${siteId}/rebuild`, { contentType: 'application/json', headers })
    expect(first.status).toBe(202)
    expect(again.status).toBe(202)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.json()['id']).toBe(first.json()['id'])
  })

  it('a route that needs a body still answers 400 validation_failed, and broken JSON stays malformed_json', async () => {
    for (const [method, path] of [
      ['POST', '/v1/sites'],
      ['POST', '/v1/tokens'],
      ['PATCH', `/v1/sites/${await newSite()}`],
    ] as const) {
      const empty = await call(method, path, { contentType: 'application/json' })
      expect(empty.status, `${method} ${path}: ${empty.text}`).toBe(400)
      expect(empty.headers.get('content-type')).toContain('application/problem+json')
      expect(empty.json()['code']).toBe('validation_failed')
    }
    const broken = await call('POST', '/v1/sites', { contentType: 'application/json', body: '{"name":' })
    expect(broken.status).toBe(400)
    expect(broken.json()['code']).toBe('malformed_json')
    const poisoned = await call('POST', '/v1/sites', { contentType: 'application/json', body: '{"__proto__":{"x":1},"name":"x"}' })
    expect(poisoned.status).toBe(400)
    expect(await app.db.selectFrom('sites').select('id').where('name', '=', 'x').execute()).toEqual([])
  })
})
