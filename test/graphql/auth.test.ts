import { get } from 'node:http'
import { describe, expect, it } from 'vitest'
import { revokeApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { afterAuditFlush, clientFor, listeningApp, makeAccount, oauthToken, post } from './helpers.ts'

const { app, endpoint, config } = await listeningApp()

const auditOf = async (accountId: string) =>
  app.db
    .selectFrom('audit_log')
    .select(['operation', 'method', 'path', 'status', 'token_id', 'client_id'])
    .where('account_id', '=', accountId)
    .orderBy('at')
    .orderBy('id')
    .execute()

describe('GraphQL in the account frame: the credentials, scopes, plans, budget and audit log of /v1', () => {
  it('answers 401 with a challenge without a token or with a bad one', async () => {
    const none = await post(endpoint, { query: '{ viewer { id } }' })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /)
    expect(none.headers.get('www-authenticate')).toContain('resource_metadata=')
    expect(none.body).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED', reason: expect.any(String) } }],
      extensions: { cost: { requested: 0, limit: 1000 } },
    })

    const bad = await post(endpoint, { query: '{ viewer { id } }' }, { authorization: 'Bearer wps_tok_nope_nope' })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(bad.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'invalid_token' })

    // An Upgrade header on a plain request does not pass for a WebSocket (whose token comes later).
    const upgradeHeader = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      get(`${endpoint}?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { upgrade: 'websocket' } }, (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      }).on('error', reject)
    })
    expect(upgradeHeader.status).toBe(401)
    expect(JSON.parse(upgradeHeader.body).errors[0].extensions.code).toBe('UNAUTHENTICATED')

    const owner = await makeAccount(app, 'pro')
    await revokeApiToken(app.db, owner.tokenId)
    const revoked = await post(endpoint, { query: '{ viewer { id } }' }, owner.headers)
    expect(revoked.status).toBe(401)
    expect(revoked.body.errors[0].message).toBe('The API token has been revoked')
  })

  it('takes account OAuth access tokens for {api_url}/v1, and no other audience', async () => {
    const owner = await makeAccount(app, 'pro')
    const forV1 = await oauthToken(app, owner.accountId, ['read:sites'])
    const answer = await clientFor(endpoint, { headers: { authorization: `Bearer ${forV1.token}` } }).rawRequest<any>(
      'query Who { viewer { id plan } sites { totalCount } }',
    )
    expect(answer.data).toEqual({ viewer: { id: owner.accountId, plan: 'pro' }, sites: { totalCount: 0 } })

    const forMcp = await oauthToken(app, owner.accountId, ['read:sites'], `${config.BASE_URL}/mcp`)
    const refused = await post(endpoint, { query: '{ viewer { id } }' }, { authorization: `Bearer ${forMcp.token}` })
    expect(refused.status).toBe(401)
    expect(refused.body.errors[0].message).toBe('The access token was not issued for this resource')

    await afterAuditFlush()
    expect(await auditOf(owner.accountId)).toEqual([
      { operation: 'graphql.Who', method: 'POST', path: '/v1/graphql', status: 200, token_id: null, client_id: 'cli_test' },
    ])
  })

  it('refuses plans without API access with 403, and changes on a read-only plan field by field', async () => {
    const free = await makeAccount(app, 'free')
    const refused = await post(endpoint, { query: '{ viewer { id } }' }, free.headers)
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', reason: 'plan_required' })
    expect(refused.headers.get('x-ratelimit-limit')).not.toBeNull()

    const plus = await makeAccount(app, 'plus')
    const { data, errors } = await clientFor(endpoint, plus).rawRequest<any>(
      'mutation { createSite(input: { name: "Not on plus" }) { id } }',
    )
    expect(data).toEqual({ createSite: null })
    expect(errors?.[0]).toMatchObject({ path: ['createSite'], extensions: { code: 'FORBIDDEN', reason: 'plan_required' } })
    const reads = await clientFor(endpoint, plus).rawRequest<any>('{ sites { totalCount } webhookEndpoints { totalCount } }')
    expect(reads.data).toEqual({ sites: { totalCount: 0 }, webhookEndpoints: null })
    expect(reads.errors?.[0]).toMatchObject({ path: ['webhookEndpoints'], extensions: { code: 'FORBIDDEN', reason: 'plan_required' } })
    expect(await app.db.selectFrom('sites').select('id').where('account_id', '=', plus.accountId).execute()).toEqual([])
  })

  it('refuses a field whose scope the token lacks, and answers the others', async () => {
    const owner = await makeAccount(app, 'pro', ['read:sites'])
    const { data, errors } = await clientFor(endpoint, owner).rawRequest<any>(
      '{ sites { totalCount } leads { totalCount } auditLog { totalCount } }',
    )
    expect(data).toEqual({ sites: { totalCount: 0 }, leads: null, auditLog: null })
    expect(errors?.map((e) => [e.path?.[0], e.extensions?.['code'], e.extensions?.['reason'], e.message]).sort()).toEqual([
      ['auditLog', 'FORBIDDEN', 'insufficient_scope', 'The token lacks the scope manage:tokens'],
      ['leads', 'FORBIDDEN', 'insufficient_scope', 'The token lacks the scope manage:leads'],
    ])
    const write = await clientFor(endpoint, owner).rawRequest<any>('mutation { createSite(input: { name: "No scope" }) { id } }')
    expect(write.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', reason: 'insufficient_scope' } })
  })

  it('counts one request as one call against the hourly budget, with its headers, and answers 429 with Retry-After above it', async () => {
    const owner = await makeAccount(app, 'pro', undefined, 3)
    const query = '{ viewer { usage { used remaining } } sites { totalCount } a: sites(first: 1) { totalCount } }'
    const remaining: Array<string | null> = []
    for (let i = 1; i <= 3; i++) {
      const answer = await post(endpoint, { query }, owner.headers)
      expect(answer.status).toBe(200)
      expect(answer.body.data.viewer.usage).toEqual({ used: i, remaining: 3 - i })
      expect(answer.headers.get('x-ratelimit-limit')).toBe('3')
      expect(answer.headers.get('ratelimit-policy')).toBe('"hourly";q=3;w=3600')
      remaining.push(answer.headers.get('x-ratelimit-remaining'))
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const over = await post(endpoint, { query, operationName: null }, owner.headers)
    expect(over.status).toBe(429)
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(over.body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', reason: 'rate_limited' })

    await afterAuditFlush()
    expect((await auditOf(owner.accountId)).map((r) => [r.operation, r.status])).toEqual([
      ['graphql.anonymous', 200],
      ['graphql.anonymous', 200],
      ['graphql.anonymous', 200],
      ['graphql.anonymous', 429],
    ])
  })

  it('records a request that changes things once, with its first change, in the same transaction', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = clientFor(endpoint, owner)
    const { data, errors } = await client.rawRequest<any>(
      `mutation TwoSites { a: createSite(input: { name: "One" }) { id } b: createSite(input: { name: "Two" }) { id } }`,
    )
    expect(errors).toBeUndefined()
    // Written with the change, not in the batch: there before any flush.
    expect(await auditOf(owner.accountId)).toEqual([
      { operation: 'graphql.TwoSites', method: 'POST', path: '/v1/graphql', status: 200, token_id: owner.tokenId, client_id: null },
    ])
    expect(data.a.id).not.toBe(data.b.id)

    const failed = await client.rawRequest<any>(`mutation Refused { createSite(input: { name: "" }) { id } }`)
    expect(failed.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT')
    await afterAuditFlush()
    expect((await auditOf(owner.accountId)).map((r) => r.operation)).toEqual(['graphql.TwoSites', 'graphql.Refused'])
  })
})
