import createClient from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import type { paths } from './generated/v1.ts'
import { afterAuditFlush, makeAccount } from './helpers.ts'

// The client generated from the OpenAPI document, over real HTTP against the listening service.
const { app } = await buildTestApp()
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const baseUrl = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''

describe('a TypeScript client generated from /openapi.json', () => {
  it('manages tokens, reads the account and the audit log', async () => {
    const owner = await makeAccount(app, 'pro')
    const client = createClient<paths>({ baseUrl, headers: owner.headers })

    const account = await client.GET('/v1/account')
    expect(account.response.status).toBe(200)
    expect(account.data?.plan).toBe('pro')
    expect(account.response.headers.get('x-ratelimit-limit')).toBe('1000')

    const created = await client.POST('/v1/tokens', {
      body: { name: 'from the client', scopes: ['read:sites'] },
      headers: { 'idempotency-key': 'client-1' },
    })
    expect(created.response.status).toBe(201)
    const token = created.data!
    expect(token.token).toMatch(/^wps_/)
    const replayed = await client.POST('/v1/tokens', {
      body: { name: 'from the client', scopes: ['read:sites'] },
      headers: { 'idempotency-key': 'client-1' },
    })
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true')
    expect(replayed.data?.id).toBe(token.id)

    const listed = await client.GET('/v1/tokens', { params: { query: { per_page: 10 } } })
    expect(listed.data?.meta).toEqual({ total: 2, page: 1, per_page: 10 })

    const rotated = await client.POST('/v1/tokens/{id}/rotate', { params: { path: { id: token.id } }, body: { grace_seconds: 0 } })
    expect(rotated.data?.previous_secret_expires_at).toBeNull()

    const refused = await client.POST('/v1/tokens', { body: { name: 'x', scopes: [] } })
    expect(refused.response.status).toBe(400)
    expect(refused.error).toMatchObject({ status: 400, code: 'validation_failed' })

    const revoked = await client.DELETE('/v1/tokens/{id}', { params: { path: { id: token.id } } })
    expect(revoked.response.status).toBe(204)

    await afterAuditFlush()
    const log = await client.GET('/v1/audit-log', { params: { query: { operation: 'tokens.create' } } })
    expect(log.data?.data.map((r) => r.status)).toEqual([400, 201, 201])
  })

  it('sees 401 with a challenge for a bad token', async () => {
    const client = createClient<paths>({ baseUrl, headers: { authorization: 'Bearer wps_bad' } })
    const res = await client.GET('/v1/account')
    expect(res.response.status).toBe(401)
    expect(res.response.headers.get('www-authenticate')).toContain('invalid_token')
    expect(res.error).toMatchObject({ code: 'invalid_token' })
  })
})
