import type { AddressInfo } from 'node:net'
import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { buildTestApp } from '../helpers/app.ts'
import { claimAgent, JWT_BEARER, preClaimToken, registerAgent } from '../mcp/helpers.ts'

/** INTERFACE.md 5.3 and DESIGN.md 7: a claimed agent acts for the person's account on /v1 too. */
describe('a claimed agent on /v1', async () => {
  const { app, config } = await buildTestApp()
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const v1 = `${config.API_URL}/v1`

  const exchange = (assertion: string, extra: Record<string, string>) =>
    fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, ...extra }) })

  it('refuses an unclaimed agent a /v1 token, and its /mcp token on /v1', async () => {
    const registration = await registerAgent(base)
    const refused = await exchange(registration.identity_assertion, { resource: v1 })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: 'invalid_target' })
    const mcpToken = await preClaimToken(base, registration)
    const res = await app.inject({ method: 'GET', url: '/v1/sites', headers: { authorization: `Bearer ${mcpToken}` } })
    expect(res.statusCode).toBe(401)
    expect(String(res.headers['www-authenticate'])).toContain('invalid_token')
  })

  it('gets a token for {api_url}/v1 with its v2 assertion and acts for the person’s account', async () => {
    const registration = await registerAgent(base)
    const { accountId, assertion } = await claimAgent(app, base, registration, 'agent-owner@example.com')
    await updateAccount(app.db, accountId, { plan: 'pro' })

    const res = await exchange(assertion, { resource: v1, scope: 'read:sites write:pages' })
    expect(res.status).toBe(200)
    const { access_token: token, scope } = (await res.json()) as { access_token: string; scope: string }
    expect(scope).toBe('read:sites write:pages')
    expect(decodeJwt(token)).toMatchObject({ aud: v1, account_id: accountId, sub: registration.registration_id })

    const auth = { authorization: `Bearer ${token}` }
    const created = await app.inject({ method: 'POST', url: '/v1/sites', headers: auth, payload: { name: 'Made by my agent' } })
    expect(created.statusCode, created.body).toBe(201)
    const list = await app.inject({ method: 'GET', url: '/v1/sites', headers: auth })
    expect(list.json().data.map((s: { id: string }) => s.id)).toContain(created.json().id)
    const audit = await app.inject({ method: 'GET', url: '/v1/audit-log', headers: auth })
    expect(audit.statusCode).toBe(403)

    // Token and webhook management stay with people and API tokens.
    const wider = await exchange(assertion, { resource: v1, scope: 'manage:tokens' })
    expect(wider.status).toBe(400)
    expect(await wider.json()).toMatchObject({ error: 'invalid_scope' })
    const elsewhere = await exchange(assertion, { resource: 'https://elsewhere.example/v1' })
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_target' })
  })
})
