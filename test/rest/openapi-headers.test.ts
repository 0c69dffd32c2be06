import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { connectSocialAccount } from '../../src/domain/social/social.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'

// The headers /openapi.json documents for /v1 are the headers the service sends: every answer
// shown here over real HTTP carries each header its operation and status document (apart from
// those that depend on the request: Idempotent-Replayed and Retry-After), and an item answer
// documents ETag exactly when it sends one.

const { app } = await buildTestApp({ env: { JOB_CONCURRENCY: '0' } })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''

type Header = { $ref?: string; description?: string; schema?: unknown }
type Answer = { headers?: Record<string, Header> }
type Operation = {
  parameters?: Array<{ in: string; name: string }>
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> }
  responses: Record<string, Answer>
}
const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
  paths: Record<string, Record<string, Operation>>
  components: { headers: Record<string, Header>; schemas: Record<string, unknown> }
}

const CONDITIONAL = new Set(['idempotent-replayed', 'retry-after'])
const RATE_LIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit']

function documentedHeaders(method: string, template: string, status: number): string[] {
  const answer = document.paths[template]?.[method.toLowerCase()]?.responses[String(status)]
  expect(answer, `${method} ${template} documents ${status}`).toBeDefined()
  return Object.keys(answer?.headers ?? {}).map((name) => name.toLowerCase())
}

const owner = await makeAccount(app, 'pro')
await withAssistantAddOn(app.db, owner.accountId)
const seen: string[] = []

/** One real call, checked against the document for its operation and status. */
async function call(
  method: string,
  template: string,
  values: Record<string, string> = {},
  body?: unknown,
  headers: Record<string, string> = owner.headers,
) {
  const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? 'x')
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  const documented = documentedHeaders(method, template, res.status)
  for (const name of documented)
    if (!CONDITIONAL.has(name)) expect(res.headers.get(name), `${method} ${template} → ${res.status} documents ${name}`).not.toBeNull()
  // ETag and Location are documented where they are sent, and only there.
  for (const name of ['etag', 'location'])
    expect(documented.includes(name), `${method} ${template} → ${res.status}: ${name} sent ${res.headers.has(name)}`).toBe(
      res.headers.has(name),
    )
  seen.push(`${method} ${template} ${res.status}`)
  return { status: res.status, headers: res.headers, json: () => JSON.parse(text) as Record<string, string> }
}

describe('headers of /v1 in the OpenAPI document', () => {
  it('every answer documents the rate-limit headers (not 401), 429 Retry-After, POST Idempotent-Replayed, PATCH and DELETE If-Match', () => {
    for (const [template, item] of Object.entries(document.paths).filter(([path]) => path.startsWith('/v1/'))) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${template}`
        for (const [status, answer] of Object.entries(operation.responses)) {
          const names = Object.keys(answer.headers ?? {}).map((name) => name.toLowerCase())
          if (status === '401') expect(names, where).toEqual([])
          else expect(names, `${where} ${status}`).toEqual(expect.arrayContaining(RATE_LIMIT))
          if (status === '429') expect(names, where).toContain('retry-after')
          if (method === 'post' && status.startsWith('2')) expect(names, where).toContain('idempotent-replayed')
          if (status === '201') expect(names, where).toEqual(expect.arrayContaining(['etag', 'location']))
        }
        const requestHeaders = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase())
        if (method === 'post') expect(requestHeaders, where).toContain('idempotency-key')
        if (method === 'patch' || method === 'delete') expect(requestHeaders, where).toContain('if-match')
      }
    }
    // Shared definitions are written once and referred to.
    expect(Object.keys(document.components.headers)).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'RateLimit',
        'RateLimit-Policy',
        'ETag',
        'Location',
        'Retry-After',
        'Idempotent-Replayed',
      ]),
    )
  })

  it('types block content by block type: a oneOf of named schemas with a discriminator on type', () => {
    const create = document.paths['/v1/pages/{page_id}/blocks']?.['post']?.requestBody?.content['application/json']?.schema as {
      oneOf: Array<{ $ref: string }>
      discriminator: { propertyName: string; mapping: Record<string, string> }
    }
    expect(create.discriminator.propertyName).toBe('type')
    expect(Object.keys(create.discriminator.mapping)).toEqual([
      'hero',
      'text',
      'image',
      'gallery',
      'features',
      'faq',
      'cta',
      'contact_form',
      'testimonial',
      'opening_hours',
      'menu',
      'contact_details',
    ])
    for (const { $ref } of create.oneOf)
      expect(document.components.schemas[$ref.split('/').at(-1)!]).toMatchObject({ type: 'object', required: ['type', 'content'] })
    expect(document.components.schemas['NewTextBlock']).toMatchObject({ properties: { content: { required: ['markdown'] } } })
    const patch = document.paths['/v1/blocks/{id}']?.['patch']?.requestBody?.content['application/json']?.schema as { anyOf: unknown[] }
    expect(patch.anyOf.length).toBe(14)
  })

  it('the answers of a tour through the resources carry what the document says', async () => {
    const site = (await call('POST', '/v1/sites', {}, { name: 'Documented' })).json()
    const ids = { id: site['id']!, site_id: site['id']! }
    await call('GET', '/v1/sites')
    await call('GET', '/v1/sites/{id}', ids)
    const etag = (await call('PATCH', '/v1/sites/{id}', ids, { name: 'Renamed' })).headers.get('etag')!
    expect((await call('PATCH', '/v1/sites/{id}', ids, { name: 'Again' }, { ...owner.headers, 'if-match': '"stale"' })).status).toBe(412)
    expect(etag).toMatch(/^"/)
    await call('GET', '/v1/sites/{id}', { id: 'site_nope12345' })
    await call('POST', '/v1/sites', {}, { name: '' })

    const page = (await call('POST', '/v1/sites/{site_id}/pages', ids, { path: '/', title: 'Home' })).json()
    await call('GET', '/v1/pages/{id}', { id: page['id']! })
    await call('PATCH', '/v1/pages/{id}', { id: page['id']! }, { title: 'Start' })
    const block = (
      await call('POST', '/v1/pages/{page_id}/blocks', { page_id: page['id']! }, { type: 'text', content: { markdown: 'Hi' } })
    ).json()
    await call('GET', '/v1/blocks/{id}', { id: block['id']! })
    await call('PATCH', '/v1/blocks/{id}', { id: block['id']! }, { content: { markdown: 'Hello' } })
    await call('DELETE', '/v1/blocks/{id}', { id: block['id']! })

    const domain = (await call('POST', '/v1/sites/{site_id}/domains', ids, { hostname: 'documented.example' })).json()
    await call('GET', '/v1/domains/{id}', { id: domain['id']! })
    await call('POST', '/v1/domains/{id}/verify', { id: domain['id']! })
    const build = (await call('POST', '/v1/sites/{id}/rebuild', ids)).json()
    await call('GET', '/v1/sites/{id}/builds/{build_id}', { ...ids, build_id: build['id']! })
    await call('GET', '/v1/sites/{id}/builds', ids)

    const token = (await call('POST', '/v1/tokens', {}, { name: 'doc', scopes: ['read:sites'] })).json()
    await call('GET', '/v1/tokens/{id}', { id: token['id']! })
    await call('POST', '/v1/tokens/{id}/rotate', { id: token['id']! }, { grace_seconds: 0 })
    await call('DELETE', '/v1/tokens/{id}', { id: token['id']! })
    await call('GET', '/v1/account')

    const helpDesk = await createSite(app.db, {
      name: 'Help',
      accountId: owner.accountId,
      hostname: 'help.documented.example',
      settings: { assistant: { enabled: true, capabilities: { handoff: true } } },
    })
    expect(helpDesk.id).toMatch(/^site_/)
    const session = await bootstrap(app, { url: 'https://help.documented.example/' })
    await chat(app, session, 'Can I talk to a human please?')
    await call('GET', '/v1/conversations/{session_id}', { session_id: session.session_id })
    await call('POST', '/v1/conversations/{session_id}/take', { session_id: session.session_id })
    await call('POST', '/v1/conversations/{session_id}/messages', { session_id: session.session_id }, { text: 'Hello from the team' })
    await call('POST', '/v1/conversations/{session_id}/resolve', { session_id: session.session_id })

    // An audit answers 202 with where to read it (no ETag: the queued audit is a moment's state).
    const audited = await createSite(app.db, { name: 'Audited', accountId: owner.accountId, hostname: 'audited.documented.example' })
    const audit = await call('POST', '/v1/sites/{id}/audits', { id: audited.id })
    expect(audit.status).toBe(202)
    expect(audit.headers.get('location')).toBe(`/v1/sites/${audited.id}/audits/${audit.json()['id']}`)
    await call('GET', '/v1/sites/{id}/audits/{audit_id}', { id: audited.id, audit_id: audit.json()['id']! })

    const { row: endpoint } = await createEndpoint(app.db, app.keyring, owner.accountId, { url: 'https://hooks.documented.example/' })
    await call('GET', '/v1/webhooks/{id}', { id: endpoint.id })
    await call('POST', '/v1/webhooks/{id}/rotate-secret', { id: endpoint.id })
    await call('POST', '/v1/webhooks/{id}/test', { id: endpoint.id })
    await call('POST', '/v1/webhooks/{id}/replay', { id: endpoint.id }, { since: new Date(Date.now() - 3_600_000).toISOString() })
    await call('DELETE', '/v1/webhooks/{id}', { id: endpoint.id })

    const social = await connectSocialAccount(app.db, app.keyring, owner.accountId, {
      serverUrl: 'https://social.documented.example',
      handle: 'doc',
      credentials: { network: 'mastodon', accessToken: 'doc-token' },
    })
    const socialTag = (await call('GET', '/v1/social-accounts/{id}', { id: social.id })).headers.get('etag')!
    expect(
      (await call('DELETE', '/v1/social-accounts/{id}', { id: social.id }, undefined, { ...owner.headers, 'if-match': '"stale"' })).status,
    ).toBe(412)
    expect(
      (await call('DELETE', '/v1/social-accounts/{id}', { id: social.id }, undefined, { ...owner.headers, 'if-match': socialTag })).status,
    ).toBe(204)

    await call('DELETE', '/v1/pages/{id}', { id: page['id']! })
    await call('DELETE', '/v1/domains/{id}', { id: domain['id']! })
    await call('DELETE', '/v1/sites/{id}', ids)
    await call('GET', '/v1/sites', {}, undefined, { authorization: 'Bearer wps_nope' })

    // A plan without API access and an exhausted hour carry the budget too.
    const free = await makeAccount(app, 'free')
    await call('GET', '/v1/sites', {}, undefined, free.headers)
    const spent = await makeAccount(app, 'pro', undefined, 1)
    await call('GET', '/v1/sites', {}, undefined, spent.headers)
    const refused = await call('GET', '/v1/sites', {}, undefined, spent.headers)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(seen.length).toBeGreaterThan(35)
  })
})
