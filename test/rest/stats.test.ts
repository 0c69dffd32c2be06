import { print } from 'graphql'
import createClient from 'openapi-fetch'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { clientFor } from '../graphql/helpers.ts'
import { SiteStatsDocument } from '../graphql/generated/client.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { claimAgent, connect, registerAgent, textOf } from '../mcp/helpers.ts'
import type { paths } from './generated/v1.ts'

// The same figures on every interface: REST (the generated client), GraphQL (graphql-request with
// the generated document) and MCP (the official client), from the daily roll-ups.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })

const EXPECTED = {
  from: '2026-11-01',
  to: '2026-11-03',
  totals: { visitors: 7, pageviews: 16, conversions: 2 },
  days: [
    { date: '2026-11-01', visitors: 4, pageviews: 10 },
    { date: '2026-11-02', visitors: 3, pageviews: 6 },
    { date: '2026-11-03', visitors: 0, pageviews: 0 },
  ],
  pages: [
    { path: '/about', pageviews: 9, visitors: 3 },
    { path: '/', pageviews: 7, visitors: 5 },
  ],
  referrers: [
    { host: 'google.com', visitors: 3 },
    { host: 'duckduckgo.com', visitors: 1 },
  ],
  devices: [
    { kind: 'desktop', visitors: 5 },
    { kind: 'mobile', visitors: 2 },
  ],
}

interface Owner {
  accountId: string
  headers: Record<string, string>
  mcpToken: string
}

async function owner(email: string): Promise<Owner> {
  const { token, accountId } = await claimAgent(app, base, await registerAgent(base), email)
  await app.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', accountId).execute()
  const api = await createApiToken(app.db, { accountId, name: 'stats', scopes: ['read:sites'] })
  return { accountId, headers: { authorization: `Bearer ${api.secret}` }, mcpToken: token }
}

let alice: Owner
let bob: Owner
let siteId: string

beforeAll(async () => {
  alice = await owner('alice-stats@example.com')
  bob = await owner('bob-stats@example.com')
  siteId = (await createSite(app.db, { name: 'Alice Bakery', accountId: alice.accountId })).id
  // What counting would have added up: two days of roll-ups and a day outside the span.
  await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions) values
    (${siteId}, '2026-11-01', 10, 4, 1), (${siteId}, '2026-11-02', 6, 3, 1), (${siteId}, '2026-10-31', 99, 50, 9)`.execute(app.db)
  const items: Array<[string, string, string, number, number]> = [
    ['2026-11-01', 'page', '/', 4, 3],
    ['2026-11-02', 'page', '/', 3, 2],
    ['2026-11-01', 'page', '/about', 6, 2],
    ['2026-11-02', 'page', '/about', 3, 1],
    ['2026-11-01', 'referrer', 'google.com', 2, 2],
    ['2026-11-02', 'referrer', 'google.com', 1, 1],
    ['2026-11-02', 'referrer', 'duckduckgo.com', 1, 1],
    ['2026-11-01', 'device', 'desktop', 7, 3],
    ['2026-11-02', 'device', 'desktop', 4, 2],
    ['2026-11-01', 'device', 'mobile', 3, 1],
    ['2026-11-02', 'device', 'mobile', 2, 1],
    ['2026-10-31', 'page', '/old', 99, 50],
  ]
  for (const [day, kind, value, pageviews, visitors] of items)
    await sql`insert into stats_items (site_id, day, kind, value, pageviews, visitors)
      values (${siteId}, ${day}::date, ${kind}, ${value}, ${pageviews}, ${visitors})`.execute(app.db)
})

describe('GET /v1/sites/{id}/stats', () => {
  it('answers the span in the documented shape, to the generated client', async () => {
    const client = createClient<paths>({ baseUrl: base, headers: alice.headers })
    const res = await client.GET('/v1/sites/{id}/stats', {
      params: { path: { id: siteId }, query: { from: '2026-11-01', to: '2026-11-03' } },
    })
    expect(res.response.status).toBe(200)
    expect(res.data).toEqual(EXPECTED)
  })

  it('answers the last 30 days without a span', async () => {
    const client = createClient<paths>({ baseUrl: base, headers: alice.headers })
    const res = await client.GET('/v1/sites/{id}/stats', { params: { path: { id: siteId } } })
    expect(res.response.status).toBe(200)
    expect(res.data?.days).toHaveLength(30)
    expect(res.data?.to).toBe(new Date().toISOString().slice(0, 10))
  })

  it('refuses a bad span with validation_failed', async () => {
    const client = createClient<paths>({ baseUrl: base, headers: alice.headers })
    for (const query of [
      { from: '2026-13-01', to: '2026-12-01' },
      { from: '2026-02-30' },
      { from: 'yesterday' },
      { from: '2026-11-05', to: '2026-11-01' },
      { from: '2024-01-01', to: '2026-01-01' },
    ]) {
      const res = await client.GET('/v1/sites/{id}/stats', { params: { path: { id: siteId }, query } })
      expect(res.response.status, JSON.stringify(query)).toBe(400)
      expect(res.response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(res.error).toMatchObject({ status: 400, code: 'validation_failed' })
    }
  })

  it("answers 404 for another account's site and 403 without read:sites", async () => {
    const other = createClient<paths>({ baseUrl: base, headers: bob.headers })
    const res = await other.GET('/v1/sites/{id}/stats', { params: { path: { id: siteId } } })
    expect(res.response.status).toBe(404)
    expect(res.error).toMatchObject({ status: 404, code: 'not_found' })
    const narrow = await createApiToken(app.db, { accountId: alice.accountId, name: 'leads only', scopes: ['manage:leads'] })
    const scoped = createClient<paths>({ baseUrl: base, headers: { authorization: `Bearer ${narrow.secret}` } })
    const refused = await scoped.GET('/v1/sites/{id}/stats', { params: { path: { id: siteId } } })
    expect(refused.response.status).toBe(403)
    expect(refused.error).toMatchObject({ code: 'insufficient_scope' })
  })
})

describe('GraphQL Site.stats', () => {
  it('answers the same figures', async () => {
    const client = clientFor(`${base}/v1/graphql`, alice)
    const { site } = await client.request(SiteStatsDocument, { id: siteId, from: '2026-11-01', to: '2026-11-03' })
    expect(site).toEqual({ id: siteId, stats: EXPECTED })
  })

  it("refuses a bad span, and finds no other account's site", async () => {
    const client = clientFor(`${base}/v1/graphql`, alice)
    const bad = await client.rawRequest(print(SiteStatsDocument), { id: siteId, from: '2026-11-05', to: '2026-11-01' })
    expect(bad.errors?.[0]?.message).toMatch(/from: must not be after to/)
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' })
    for (const [from, to, message] of [
      ['2024-01-01', '2026-01-01', /to: a span covers at most 400 days/],
      ['yesterday', undefined, /from: must be a date as YYYY-MM-DD/],
      ['2026-02-30', undefined, /from: must be a date as YYYY-MM-DD/],
    ] as const) {
      const refused = await client.rawRequest(print(SiteStatsDocument), { id: siteId, from, to })
      expect(refused.errors?.[0]?.message).toMatch(message)
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' })
    }
    const other = await clientFor(`${base}/v1/graphql`, bob).rawRequest(print(SiteStatsDocument), { id: siteId })
    expect(other.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('MCP get_site_stats', () => {
  it('answers the same figures as structured content', async () => {
    const client = await connect(base, alice.mcpToken)
    const result = await client.callTool({ name: 'get_site_stats', arguments: { site_id: siteId, from: '2026-11-01', to: '2026-11-03' } })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(result.structuredContent).toEqual(EXPECTED)
  })

  it("refuses a bad span and another account's site", async () => {
    const client = await connect(base, bob.mcpToken)
    const other = await client.callTool({ name: 'get_site_stats', arguments: { site_id: siteId } })
    expect(other.isError).toBe(true)
    expect(textOf(other)).toMatch(/^not_found: /)
    const own = await connect(base, alice.mcpToken)
    const bad = await own.callTool({ name: 'get_site_stats', arguments: { site_id: siteId, from: '2026-11-05', to: '2026-11-01' } })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/^validation_failed: from: must not be after to/)
    const long = await own.callTool({ name: 'get_site_stats', arguments: { site_id: siteId, from: '2024-01-01', to: '2026-01-01' } })
    expect(long.isError).toBe(true)
    expect(textOf(long)).toMatch(/^validation_failed: to: a span covers at most 400 days/)
    const malformed = await own.callTool({ name: 'get_site_stats', arguments: { site_id: siteId, to: '2026-13-01' } })
    expect(textOf(malformed)).toMatch(/^validation_failed: to: must be a date as YYYY-MM-DD/)
  })
})
