import { describe, expect, it } from 'vitest'
import { denyJtis } from '../../src/infra/revocations.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount, oauthToken } from './helpers.ts'

const { app, config } = await buildTestApp()
const metadata = `${config.API_URL}/.well-known/oauth-protected-resource/v1`
const get = (headers: Record<string, string> = {}, url = '/v1/account') => app.inject({ method: 'GET', url, headers })

function expectRateLimitHeaders(headers: Record<string, unknown>, limit: number) {
  expect(headers['x-ratelimit-limit']).toBe(String(limit))
  expect(Number(headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0)
  expect(Number(headers['x-ratelimit-reset'])).toBeGreaterThan(0)
  expect(Number(headers['x-ratelimit-reset'])).toBeLessThanOrEqual(3600)
  expect(headers['ratelimit-policy']).toBe(`"hourly";q=${limit};w=3600`)
  expect(headers['ratelimit']).toMatch(/^"hourly";r=\d+;t=\d+$/)
}

describe('credentials on /v1', () => {
  it('challenges a call without credentials: 401, WWW-Authenticate with resource_metadata, no rate-limit headers', async () => {
    const res = await get()
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadata}"`)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(res.json()).toMatchObject({ status: 401, code: 'invalid_token' })
    expect(res.headers['x-ratelimit-limit']).toBeUndefined()
  })

  it('accepts an API token and an account OAuth token for {api_url}/v1', async () => {
    const account = await makeAccount(app, 'pro')
    const byToken = await get(account.headers)
    expect(byToken.statusCode).toBe(200)
    expect(byToken.json()).toMatchObject({ id: account.accountId, plan: 'pro' })
    const oauth = await oauthToken(app, account.accountId, ['read:sites'])
    const byOauth = await get({ authorization: `Bearer ${oauth.token}` })
    expect(byOauth.statusCode).toBe(200)
    expect(byOauth.json()).toMatchObject({ id: account.accountId })
  })

  it.each([
    ['a malformed API token', 'Bearer wps_nonsense', 'The API token is malformed'],
    ['an unknown API token', `Bearer wps_tok_${'A'.repeat(22)}_${'B'.repeat(43)}`, 'The API token is invalid'],
    ['a JWT that is not one', 'Bearer eyJhbGciOiJub25lIn0.e30.', 'The access token is invalid'],
  ])('refuses %s with 401 invalid_token and a challenge', async (_name, authorization, detail) => {
    const res = await get({ authorization })
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"')
    expect(res.headers['www-authenticate']).toContain(`resource_metadata="${metadata}"`)
    expect(res.json()).toMatchObject({ code: 'invalid_token', detail })
  })

  it('refuses a wrong secret for a real token id, a revoked token and an expired token', async () => {
    const account = await makeAccount(app, 'pro')
    const wrong = `${account.secret.slice(0, -1)}${account.secret.endsWith('A') ? 'B' : 'A'}`
    expect((await get({ authorization: `Bearer ${wrong}` })).json()).toMatchObject({
      code: 'invalid_token',
      detail: 'The API token is invalid',
    })

    await app.db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('id', '=', account.tokenId).execute()
    const revoked = await get(account.headers)
    expect(revoked.statusCode).toBe(401)
    expect(revoked.json()).toMatchObject({ detail: 'The API token has been revoked' })

    const other = await makeAccount(app, 'pro')
    await app.db
      .updateTable('api_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', other.tokenId)
      .execute()
    const expired = await get(other.headers)
    expect(expired.statusCode).toBe(401)
    expect(expired.json()).toMatchObject({ detail: 'The API token has expired' })
  })

  it("spends nothing of the account's hour on a refused token: a wrong secret, a revoked or an expired token", async () => {
    const account = await makeAccount(app, 'pro')
    const used = async () => Number((await get(account.headers)).headers['x-ratelimit-remaining'])
    const before = await used()
    const wrong = `${account.secret.slice(0, -1)}${account.secret.endsWith('A') ? 'B' : 'A'}`
    for (let i = 0; i < 3; i++) expect((await get({ authorization: `Bearer ${wrong}` })).statusCode).toBe(401)
    // The next good call is the only one counted since.
    expect(await used()).toBe(before - 1)

    const rotated = await makeAccount(app, 'pro')
    await app.db
      .updateTable('api_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', rotated.tokenId)
      .execute()
    expect((await get(rotated.headers)).statusCode).toBe(401)
    await app.db.updateTable('api_tokens').set({ expires_at: null, revoked_at: new Date() }).where('id', '=', rotated.tokenId).execute()
    expect((await get(rotated.headers)).statusCode).toBe(401)
    const quota = await app.db.selectFrom('api_quota').select('used').where('account_id', '=', rotated.accountId).executeTakeFirst()
    expect(quota?.used ?? 0).toBe(0)
  })

  it('refuses OAuth tokens for another audience, expired, revoked, or acting for no account', async () => {
    const account = await makeAccount(app, 'pro')
    const mcp = await oauthToken(app, account.accountId, ['mcp:read'], `${config.BASE_URL}/mcp`)
    expect((await get({ authorization: `Bearer ${mcp.token}` })).json()).toMatchObject({
      code: 'invalid_token',
      detail: 'The access token was not issued for this resource',
    })

    const expired = await oauthToken(app, account.accountId, ['read:sites'], undefined, -120)
    expect((await get({ authorization: `Bearer ${expired.token}` })).json()).toMatchObject({
      code: 'invalid_token',
      detail: 'The access token has expired',
    })

    const revoked = await oauthToken(app, account.accountId, ['read:sites'])
    await denyJtis(app.db, [{ jti: revoked.jti, expiresAt: revoked.expiresAt }])
    expect((await get({ authorization: `Bearer ${revoked.token}` })).json()).toMatchObject({
      code: 'invalid_token',
      detail: 'The access token has been revoked',
    })

    const agent = await oauthToken(app, undefined, ['read:sites'])
    const unclaimed = await get({ authorization: `Bearer ${agent.token}` })
    expect(unclaimed.statusCode).toBe(401)
    expect(unclaimed.json()).toMatchObject({ detail: 'The access token does not act for an account' })
  })

  it('acts for the account named in the token, so a claimed agent acts for its person', async () => {
    const account = await makeAccount(app, 'plus')
    const signed = await app.signer.sign(
      { client_id: 'reg_agent', scope: 'read:sites', account_id: account.accountId },
      { typ: 'at+jwt', subject: 'reg_agent', audience: `${config.API_URL}/v1`, expiresInSeconds: 600 },
    )
    const res = await get({ authorization: `Bearer ${signed}` })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: account.accountId, plan: 'plus' })
  })
})

describe('plans and quotas', () => {
  it.each(['free', 'lite'] as const)('answers 403 plan_required on plan %s, with the rate-limit headers', async (plan) => {
    const account = await makeAccount(app, plan)
    const res = await get(account.headers)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ code: 'plan_required' })
    expectRateLimitHeaders(res.headers, 0)
  })

  it.each([
    ['plus', 300],
    ['pro', 1000],
    ['max', 10000],
  ] as const)('gives plan %s a budget of %i an hour', async (plan, limit) => {
    const account = await makeAccount(app, plan)
    const first = await get(account.headers)
    expect(first.statusCode).toBe(200)
    expectRateLimitHeaders(first.headers, limit)
    expect(first.headers['x-ratelimit-remaining']).toBe(String(limit - 1))
    const second = await get(account.headers)
    expect(second.headers['x-ratelimit-remaining']).toBe(String(limit - 2))
    expect(second.json()).toMatchObject({ quota: { requests_per_hour: limit, override: false }, usage: { used: 2, remaining: limit - 2 } })
  })

  it('honours a per-account override and answers 429 rate_limited with Retry-After above it', async () => {
    const account = await makeAccount(app, 'max', undefined, 2)
    expect((await get(account.headers)).statusCode).toBe(200)
    const last = await get(account.headers)
    expect(last.statusCode).toBe(200)
    expect(last.headers['x-ratelimit-remaining']).toBe('0')
    const over = await get(account.headers)
    expect(over.statusCode).toBe(429)
    expect(over.json()).toMatchObject({ status: 429, code: 'rate_limited' })
    expectRateLimitHeaders(over.headers, 2)
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(3600)
    // Another account's budget is its own.
    expect((await get((await makeAccount(app, 'max', undefined, 2)).headers)).statusCode).toBe(200)
  })

  it('answers 403 insufficient_scope with a challenge naming the scope', async () => {
    const account = await makeAccount(app, 'pro', ['read:sites'])
    const res = await get(account.headers, '/v1/tokens')
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ code: 'insufficient_scope' })
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"')
    expect(res.headers['www-authenticate']).toContain('scope="manage:tokens"')
    expectRateLimitHeaders(res.headers, 1000)
  })

  it('answers an unknown /v1 path 404 problem for an identified account and 401 for an anonymous one', async () => {
    const account = await makeAccount(app, 'pro')
    const res = await get(account.headers, '/v1/nothing-here')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ code: 'not_found' })
    expectRateLimitHeaders(res.headers, 1000)
    expect((await get({}, '/v1/nothing-here')).statusCode).toBe(401)
  })
})
