import { describe, expect, it } from 'vitest'
import { purgeRestData } from '../../src/rest/purge.ts'
import { buildTestApp } from '../helpers/app.ts'
import { afterAuditFlush, makeAccount, oauthToken } from './helpers.ts'

const { app } = await buildTestApp()

const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers })

describe('the audit log', () => {
  it('records every call of an identified account with the route template, refusals included', async () => {
    const owner = await makeAccount(app, 'pro')
    const created = await app.inject({
      method: 'POST',
      url: '/v1/tokens',
      headers: owner.headers,
      payload: { name: 'n', scopes: ['read:sites'] },
    })
    const newId = created.json().id as string
    await app.inject({ method: 'POST', url: `/v1/tokens/${newId}/rotate`, headers: owner.headers, payload: { grace_seconds: 0 } })
    await get('/v1/account', { ...owner.headers, 'x-request-id': 'ignored' })
    await app.inject({ method: 'POST', url: '/v1/tokens', headers: owner.headers, payload: { name: 'n', scopes: ['nope'] } })
    await afterAuditFlush()

    const res = await get('/v1/audit-log', owner.headers)
    expect(res.statusCode).toBe(200)
    const { data, meta } = res.json() as { data: Array<Record<string, unknown>>; meta: Record<string, number> }
    expect(meta).toEqual({ total: 4, page: 1, per_page: 20 })
    expect(data.map((r) => [r['operation'], r['method'], r['path'], r['status']])).toEqual([
      ['tokens.create', 'POST', '/v1/tokens', 400],
      ['account.get', 'GET', '/v1/account', 200],
      ['tokens.rotate', 'POST', '/v1/tokens/:id/rotate', 200],
      ['tokens.create', 'POST', '/v1/tokens', 201],
    ])
    for (const record of data) {
      expect(record).toMatchObject({ account_id: owner.accountId, token_id: owner.tokenId, client_id: null, ip: '127.0.0.1' })
      expect(record['id']).toMatch(/^aud_/)
      expect(typeof record['request_id']).toBe('string')
      expect(Date.now() - Date.parse(record['at'] as string)).toBeLessThan(60_000)
    }
  })

  it('filters by token, operation and time, pages, and shows nothing of another account', async () => {
    const owner = await makeAccount(app, 'pro')
    const oauth = await oauthToken(app, owner.accountId, ['manage:tokens'])
    const byOauth = { authorization: `Bearer ${oauth.token}` }
    await get('/v1/account', owner.headers)
    await get('/v1/account', byOauth)
    await get('/v1/tokens', byOauth)
    const other = await makeAccount(app, 'pro')
    await get('/v1/account', other.headers)
    await afterAuditFlush()

    const byToken = (await get(`/v1/audit-log?token_id=${owner.tokenId}`, owner.headers)).json()
    expect(byToken.data.map((r: { operation: string }) => r.operation)).toEqual(['account.get'])
    const byOperation = (await get('/v1/audit-log?operation=account.get', byOauth)).json()
    expect(byOperation.meta.total).toBe(2)
    const oauthRecord = byOperation.data.find((r: { token_id: string | null }) => r.token_id === null)
    expect(oauthRecord).toMatchObject({ client_id: 'cli_test' })
    const paged = (await get('/v1/audit-log?per_page=2&page=2', owner.headers)).json()
    expect(paged.meta).toMatchObject({ page: 2, per_page: 2 })
    expect(paged.data.length).toBeGreaterThan(0)
    expect(paged.data.every((r: { account_id: string }) => r.account_id === owner.accountId)).toBe(true)

    const future = new Date(Date.now() + 60_000).toISOString()
    expect((await get(`/v1/audit-log?since=${encodeURIComponent(future)}`, owner.headers)).json().meta.total).toBe(0)
    const past = new Date(Date.now() - 60_000).toISOString()
    expect((await get(`/v1/audit-log?until=${encodeURIComponent(past)}`, owner.headers)).json().meta.total).toBe(0)
  })

  it('refuses bad filters with 400', async () => {
    const owner = await makeAccount(app, 'pro')
    for (const query of ['since=yesterday', 'per_page=101', 'page=0', 'per_page=abc', 'unknown=1', `operation=${'x'.repeat(101)}`]) {
      const res = await get(`/v1/audit-log?${query}`, owner.headers)
      expect(res.statusCode, query).toBe(400)
      expect(res.json().code).toBe('validation_failed')
    }
  })

  it('is purged after 90 days by the daily job, with day-old Idempotency-Keys and ended quota windows', async () => {
    const owner = await makeAccount(app, 'pro')
    const old = new Date(Date.now() - 91 * 86_400_000)
    await app.db
      .insertInto('audit_log')
      .values({
        id: 'aud_old',
        at: old,
        account_id: owner.accountId,
        token_id: null,
        client_id: null,
        operation: 'x',
        method: 'GET',
        path: '/v1/x',
        status: 200,
        request_id: 'r',
        ip: '127.0.0.1',
      })
      .execute()
    await app.db
      .insertInto('api_quota')
      .values({ account_id: owner.accountId, window_start: new Date(Date.now() - 2 * 3600_000), used: 5 })
      .execute()
    await get('/v1/account', owner.headers)
    await afterAuditFlush()
    const counts = await purgeRestData(app)
    expect(counts['audit_log']).toBeGreaterThanOrEqual(1)
    expect(counts['api_quota']).toBeGreaterThanOrEqual(1)
    expect(await app.db.selectFrom('audit_log').select('id').where('id', '=', 'aud_old').executeTakeFirst()).toBeUndefined()
    expect((await get('/v1/audit-log', owner.headers)).json().meta.total).toBeGreaterThanOrEqual(1)
    const job = await app.db.selectFrom('jobs').select(['name', 'run_at']).where('name', '=', 'rest.purge').executeTakeFirst()
    expect(job).toBeDefined()
    expect(job!.run_at.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000)
  })
})
