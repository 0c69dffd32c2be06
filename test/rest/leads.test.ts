import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'
import { client, expectProblem } from './sites-helpers.ts'

const { app } = await buildTestApp()
const owner = await makeAccount(app, 'pro')
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const stranger = client(app, other.headers)

const siteA = await createSite(app.db, { name: 'A', accountId: owner.accountId })
const siteB = await createSite(app.db, { name: 'B', accountId: owner.accountId })
const foreign = await createSite(app.db, { name: 'Foreign', accountId: other.accountId })
const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'de' as const, acceptedAt: new Date('2026-11-20T10:00:00Z') }
const lead = (siteId: string, email: string, extra: { name?: string; note?: string } = {}) =>
  insertLead(app.db, app.keyring, { siteId, sessionId: null, email, consent, source: 'assistant', ...extra }) as Promise<string>

const first = await lead(siteA.id, 'ana@example.com', { name: 'Ana', note: 'Call me' })
await new Promise((resolve) => setTimeout(resolve, 20))
const since = new Date()
const second = await lead(siteB.id, 'ben@example.com')
const theirs = await lead(foreign.id, 'zoe@example.com')

describe('/v1/leads', () => {
  it('lists the account leads, newest first, opened only in the answer, filtered by site and time', async () => {
    const res = await api('GET', '/v1/leads')
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.meta).toEqual({ total: 2, page: 1, per_page: 20 })
    expect(body.data.map((l: { id: string }) => l.id)).toEqual([second, first])
    expect(body.data[1]).toEqual({
      id: first,
      site_id: siteA.id,
      source: 'assistant',
      status: 'new',
      email: 'ana@example.com',
      name: 'Ana',
      note: 'Call me',
      consent: { version: CONSENT_VERSION, locale: 'de', digest: 'a'.repeat(64), given_at: '2026-11-20T10:00:00.000Z' },
      created_at: expect.any(String),
    })
    expect((await api('GET', `/v1/leads?site_id=${siteA.id}`)).json().data.map((l: { id: string }) => l.id)).toEqual([first])
    expect(
      (await api('GET', `/v1/leads?since=${encodeURIComponent(since.toISOString())}`)).json().data.map((l: { id: string }) => l.id),
    ).toEqual([second])
    expect((await api('GET', `/v1/leads?site_id=${foreign.id}`)).json().meta.total).toBe(0)
    const row = await app.db.selectFrom('leads').selectAll().where('id', '=', first).executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toMatch(/ana@example\.com|Call me/)
  })

  it('reads and deletes one lead with If-Match; other accounts and bad ids are refused', async () => {
    const got = await api('GET', `/v1/leads/${second}`)
    expect(got.json().email).toBe('ben@example.com')
    expectProblem(await stranger('GET', `/v1/leads/${second}`), 404, 'not_found')
    expectProblem(await stranger('DELETE', `/v1/leads/${second}`), 404, 'not_found')
    expectProblem(await api('GET', `/v1/leads/${theirs}`), 404, 'not_found')
    expectProblem(await api('GET', '/v1/leads/nope'), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/leads?since=yesterday'), 400, 'validation_failed')
    expectProblem(await api('GET', '/v1/leads?site_id=x'), 400, 'validation_failed')
    expectProblem(await api('DELETE', `/v1/leads/${second}`, undefined, { 'if-match': '"stale"' }), 412, 'precondition_failed')
    expect((await api('DELETE', `/v1/leads/${second}`, undefined, { 'if-match': got.headers['etag'] as string })).statusCode).toBe(204)
    expectProblem(await api('GET', `/v1/leads/${second}`), 404, 'not_found')
    expect((await stranger('GET', `/v1/leads/${theirs}`)).statusCode).toBe(200)
  })

  it('needs manage:leads', async () => {
    const reader = await makeAccount(app, 'pro', ['read:sites', 'write:pages'])
    expectProblem(await client(app, reader.headers)('GET', '/v1/leads'), 403, 'insufficient_scope')
  })
})
