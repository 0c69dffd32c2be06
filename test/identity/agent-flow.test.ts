import * as oauth from 'oauth4webapi'
import { decodeJwt, decodeProtectedHeader, jwtVerify, createRemoteJWKSet } from 'jose'
import { describe, expect, it } from 'vitest'
import { Browser, json, startLiveApp } from './helpers.ts'
import { probeRoutes } from './probe.ts'

// Every ceremony here comes from 127.0.0.1, more code entries than one person's minute allows;
// the limits themselves are tested in throttle.test.ts.
const { app, base } = await startLiveApp({ plugins: [probeRoutes], env: { RATE_LIMIT_FACTOR: '10' } })
const insecure = { [oauth.allowInsecureRequests]: true } as const
const issuer = new URL(base)
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
const CLAIM = 'urn:presence:agent-auth:grant-type:claim'
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

interface Registration {
  registration_id: string
  identity_assertion: string
  claim_token: string
  [key: string]: unknown
}

async function register(): Promise<Registration> {
  const res = await fetch(`${base}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'anonymous' }),
  })
  expect(res.status).toBe(200)
  return (await json(res)) as Registration
}

/** The agent is a public client named by its registration. */
const agentClient = (reg: Registration): oauth.Client => ({ client_id: reg.registration_id, token_endpoint_auth_method: 'none' })

async function exchange(reg: Registration, assertion = reg.identity_assertion) {
  const response = await oauth.genericTokenEndpointRequest(as, agentClient(reg), oauth.None(), JWT_BEARER, { assertion }, insecure)
  return oauth.processGenericTokenEndpointResponse(as, agentClient(reg), response)
}

async function poll(reg: Registration) {
  const response = await oauth.genericTokenEndpointRequest(
    as,
    agentClient(reg),
    oauth.None(),
    CLAIM,
    { claim_token: reg.claim_token },
    insecure,
  )
  return oauth.processGenericTokenEndpointResponse(as, agentClient(reg), response)
}

async function pollError(reg: Registration): Promise<string> {
  try {
    await poll(reg)
    return 'none'
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error
    throw error
  }
}

async function startClaim(reg: Registration, body: Record<string, string> = { claim_token: reg.claim_token, email: 'owner@example.com' }) {
  return fetch(`${base}/agent/identity/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const bearer = (token: string, path = '/probe/mcp/read') => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })

/** Lets the claim attempt's polling interval pass without waiting for it. */
async function skipInterval(reg: Registration) {
  await app.db
    .updateTable('claim_attempts')
    .set({ last_polled_at: new Date(Date.now() - 60_000) })
    .where('registration_id', '=', reg.registration_id)
    .execute()
}

describe('agent registration and the claim ceremony', () => {
  it('discovers the agent_auth block and the protected resource through oauth4webapi', async () => {
    expect(as.issuer).toBe(base)
    expect((as as Record<string, unknown>)['agent_auth']).toMatchObject({
      identity_endpoint: `${base}/agent/identity`,
      claim_endpoint: `${base}/agent/identity/claim`,
    })
    const resource = new URL(`${base}/mcp`)
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure))
    expect(rs.authorization_servers).toEqual([base])
  })

  it('registers anonymously with an RS256 identity assertion and a claim token stored only as a hash', async () => {
    const reg = await register()
    expect(reg).toMatchObject({
      registration_id: expect.stringMatching(/^reg_/),
      registration_type: 'anonymous',
      pre_claim_scopes: ['mcp:read'],
      post_claim_scopes: ['mcp:read', 'mcp:tools'],
      claim_url: `${base}/agent/identity/claim`,
      claim_token: expect.stringMatching(/^clm_/),
    })
    const lifetime = Date.parse(reg['claim_token_expires'] as string) - Date.now()
    expect(lifetime).toBeGreaterThan(24 * 3600_000 - 60_000)
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000)
    expect(decodeProtectedHeader(reg.identity_assertion)).toMatchObject({ alg: 'RS256' })
    const { payload } = await jwtVerify(reg.identity_assertion, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), {
      issuer: base,
    })
    expect(payload.sub).toBe(reg.registration_id)
    expect((payload.exp as number) * 1000).toBe(Date.parse(reg['assertion_expires'] as string))
    const row = await app.db.selectFrom('agent_registrations').selectAll().where('id', '=', reg.registration_id).executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(reg.claim_token)
    expect(row.claim_token_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('refuses other identity types and malformed bodies in the RFC 6749 error shape', async () => {
    const other = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'id-jag' }),
    })
    expect(other.status).toBe(400)
    expect(await json(other)).toEqual({ error: 'unsupported_identity_type', error_description: expect.any(String) })
    const extra = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'anonymous', admin: true }),
    })
    expect(extra.status).toBe(400)
    expect((await json(extra)).error).toBe('invalid_request')
    const broken = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":',
    })
    expect(broken.status).toBe(400)
    expect(await json(broken)).toEqual({ error: 'invalid_request', error_description: expect.any(String) })
    const huge = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'x'.repeat(2_000_000) }),
    })
    expect(huge.status).toBe(413)
    expect((await json(huge)).error).toBe('invalid_request')
  })

  it('exchanges the assertion (RFC 7523) for an RFC 9068 access token with scope mcp:read that the guard accepts', async () => {
    const reg = await register()
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const tokens = await exchange(reg)
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'mcp:read' })
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' })
    // oauth4webapi's own RFC 9068 validation, as a resource server would run it.
    const claims = await oauth.validateJwtAccessToken(
      as,
      new Request(`${base}/mcp`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      `${base}/mcp`,
      insecure,
    )
    expect(claims).toMatchObject({
      iss: base,
      sub: reg.registration_id,
      aud: `${base}/mcp`,
      client_id: reg.registration_id,
      scope: 'mcp:read',
    })
    expect(claims.exp - claims.iat).toBe(3600)
    const probe = await bearer(tokens.access_token)
    expect(probe.status).toBe(200)
    expect(await json(probe)).toMatchObject({ subject: reg.registration_id, scopes: ['mcp:read'] })
    // mcp:tools needs a claim.
    const tools = await bearer(tokens.access_token, '/probe/mcp/tools')
    expect(tools.status).toBe(403)
    expect(tools.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks the scope mcp:tools", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
    )
  })

  it('refuses forged, foreign and swapped assertions with invalid_grant', async () => {
    const reg = await register()
    const tokens = await exchange(reg)
    const [header, payload] = reg.identity_assertion.split('.')
    const cases = [
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'identity-assertion+jwt' })).toString('base64url')}.${payload}.`,
      `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(reg.identity_assertion), sub: 'reg_other' })).toString('base64url')}.${reg.identity_assertion.split('.')[2]}`,
      tokens.access_token, // an access token is not an identity assertion
      'not-a-jwt',
    ]
    for (const assertion of cases) {
      const res = await fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }) })
      expect(res.status).toBe(400)
      expect((await json(res)).error).toBe('invalid_grant')
    }
    const wider = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion, scope: 'mcp:read mcp:tools' }),
    })
    expect((await json(wider)).error).toBe('invalid_scope')
    const elsewhere = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion, resource: `${base}/v1` }),
    })
    expect((await json(elsewhere)).error).toBe('invalid_target')
    const long = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: 'a'.repeat(20_000) }),
    })
    expect(long.status).toBe(400)
    expect(await json(long)).toEqual({ error: 'invalid_request', error_description: 'The assertion is too long' })
    const missing = await fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: JWT_BEARER }) })
    expect((await json(missing)).error).toBe('invalid_request')
    const unknown = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'a', password: 'b' }),
    })
    expect(unknown.status).toBe(400)
    expect(await json(unknown)).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) })
    const twice = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: `grant_type=${encodeURIComponent(JWT_BEARER)}&grant_type=authorization_code&assertion=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(twice.status).toBe(400)
    expect((await json(twice)).error).toBe('invalid_request')
  })

  it('runs the claim: polling answers authorization_pending and slow_down while a person completes the verification page', async () => {
    const reg = await register()
    const preClaim = await exchange(reg)
    const claimRes = await startClaim(reg)
    expect(claimRes.status).toBe(200)
    const { claim_attempt: attempt } = (await json(claimRes)) as {
      claim_attempt: { user_code: string; verification_uri: string; expires_in: number; interval: number }
    }
    expect(attempt).toEqual({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${base}/agent/identity/verify`,
      expires_in: 600,
      interval: 5,
    })

    expect(await pollError(reg)).toBe('authorization_pending')
    // Polled again at once: faster than the interval.
    expect(await pollError(reg)).toBe('slow_down')
    const slowed = await app.db
      .selectFrom('claim_attempts')
      .select('interval_seconds')
      .where('registration_id', '=', reg.registration_id)
      .executeTakeFirstOrThrow()
    expect(slowed.interval_seconds).toBe(10)

    // The person, in a browser without JavaScript.
    const person = new Browser(base)
    const entry = await person.get(new URL(attempt.verification_uri).pathname)
    expect(entry.status).toBe(200)
    expect(entry.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const afterCode = await person.submit(entry, { user_code: attempt.user_code.toLowerCase() })
    expect(afterCode.status).toBe(303)
    expect(afterCode.location).toMatch(/^\/signin\?return_to=/)
    const confirm = await person.signIn(app, 'Owner@Example.com', afterCode)
    expect(confirm.status).toBe(200)
    expect(confirm.html).toContain('owner@example.com')
    expect(confirm.html).toContain(attempt.user_code)

    await skipInterval(reg)
    expect(await pollError(reg)).toBe('authorization_pending')

    const done = await person.submit(confirm, {}, { button: ['decision', 'approve'] })
    expect(done.status).toBe(200)
    expect(done.html).toContain('Agent connected')

    await skipInterval(reg)
    const tokens = await poll(reg)
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'mcp:read mcp:tools' })
    expect(tokens.refresh_token).toMatch(/^rt_/)
    const v2 = tokens['identity_assertion'] as string
    const { payload } = await jwtVerify(v2, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), { issuer: base })
    expect(payload).toMatchObject({ sub: reg.registration_id, ver: 2, email: 'owner@example.com' })
    expect((await bearer(tokens.access_token, '/probe/mcp/tools')).status).toBe(200)

    // Completing the claim revoked the pre-claim token and the anonymous assertion.
    const old = await bearer(preClaim.access_token)
    expect(old.status).toBe(401)
    expect(old.headers.get('www-authenticate')).toContain('error="invalid_token"')
    await expect(exchange(reg)).rejects.toMatchObject({ error: 'invalid_grant' })
    // The v2 assertion gives post-claim tokens again.
    expect((await exchange(reg, v2)).scope).toBe('mcp:read mcp:tools')
    // The claim is redeemed once; claiming again is refused.
    expect(await pollError(reg)).toBe('invalid_grant')
    const again = await startClaim(reg)
    expect(again.status).toBe(409)
    expect((await json(again)).error).toBe('claimed_or_in_flight')

    // The account was created on first sign-in, on plan free.
    const account = await app.db
      .selectFrom('agent_registrations')
      .innerJoin('accounts', 'accounts.id', 'agent_registrations.account_id')
      .select(['accounts.plan', 'agent_registrations.status'])
      .where('agent_registrations.id', '=', reg.registration_id)
      .executeTakeFirstOrThrow()
    expect(account).toEqual({ plan: 'free', status: 'claimed' })

    // The agent's refresh token rotates.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      agentClient(reg),
      await oauth.refreshTokenGrantRequest(as, agentClient(reg), oauth.None(), tokens.refresh_token as string, insecure),
    )
    expect(refreshed.scope).toBe('mcp:read mcp:tools')
    expect(decodeJwt(refreshed.access_token).sub).toBe(reg.registration_id)
  })

  it('completes an agent polling loop that honours the interval while a person approves at the same time', async () => {
    const reg = await register()
    const { claim_attempt: attempt } = await json(await startClaim(reg, { claim_token: reg.claim_token, email: 'looper@example.com' }))
    const answers: string[] = []

    // The agent: polls, waits `interval` seconds after authorization_pending, 5 more after slow_down.
    const agent = (async () => {
      let interval = attempt.interval as number
      for (;;) {
        try {
          return await poll(reg)
        } catch (error) {
          if (!(error instanceof oauth.ResponseBodyError)) throw error
          answers.push(error.error)
          if (error.error === 'slow_down') interval += 5
          else if (error.error !== 'authorization_pending') throw error
        }
        await new Promise((resolve) => setTimeout(resolve, interval * 1000))
      }
    })()

    // The person, meanwhile.
    const person = new Browser(base)
    const confirm = await person.signIn(
      app,
      'looper@example.com',
      await person.submit(await person.get('/agent/identity/verify'), { user_code: attempt.user_code }),
    )
    expect((await person.submit(confirm, {}, { button: ['decision', 'approve'] })).html).toContain('Agent connected')

    const tokens = await agent
    expect(answers[0]).toBe('authorization_pending')
    expect(answers).not.toContain('slow_down')
    expect(tokens.scope).toBe('mcp:read mcp:tools')
    expect((await bearer(tokens.access_token, '/probe/mcp/tools')).status).toBe(200)
  }, 20_000)

  it('accepts the login_hint body and the reference grant name, and answers access_denied when the person declines', async () => {
    const reg = await register()
    const res = await startClaim(reg, { type: 'login_hint', claim_token: reg.claim_token, login_hint: 'decliner@example.com' })
    expect(res.status).toBe(200)
    const { claim_attempt: attempt } = await json(res)
    const person = new Browser(base)
    const confirm = await person.signIn(
      app,
      'decliner@example.com',
      await person.submit(await person.get('/agent/identity/verify'), { user_code: attempt.user_code }),
    )
    const declined = await person.submit(confirm, {}, { button: ['decision', 'deny'] })
    expect(declined.html).toContain('declined')
    const response = await oauth.genericTokenEndpointRequest(
      as,
      agentClient(reg),
      oauth.None(),
      'urn:workos:agent-auth:grant-type:claim',
      { claim_token: reg.claim_token },
      insecure,
    )
    await expect(oauth.processGenericTokenEndpointResponse(as, agentClient(reg), response)).rejects.toMatchObject({
      error: 'access_denied',
    })
  })

  it('only lets the person named by the agent approve, ending the attempt after five wrong accounts', async () => {
    const reg = await register()
    const { claim_attempt: attempt } = await json(await startClaim(reg, { claim_token: reg.claim_token, email: 'named@example.com' }))
    const stranger = new Browser(base)
    const confirm = await stranger.signIn(
      app,
      'stranger@example.com',
      await stranger.submit(await stranger.get('/agent/identity/verify'), { user_code: attempt.user_code }),
    )
    for (let i = 0; i < 5; i++) {
      const refused = await stranger.submit(confirm, {}, { button: ['decision', 'approve'] })
      expect(refused.status).toBe(403)
      expect(refused.html).toContain('different email address')
    }
    // The fifth wrong account ended the attempt.
    expect((await stranger.submit(confirm, {}, { button: ['decision', 'approve'] })).status).toBe(400)
    expect(await pollError(reg)).toBe('access_denied')
  })

  it('answers invalid_claim_token 401, claim_expired 410 and claimed_or_in_flight 409 (a claim token used twice)', async () => {
    const unknown = await startClaim({ registration_id: 'reg_x', identity_assertion: '', claim_token: `clm_${'A'.repeat(43)}` })
    expect(unknown.status).toBe(401)
    expect(await json(unknown)).toEqual({ error: 'invalid_claim_token', error_description: expect.any(String) })

    const reg = await register()
    expect((await startClaim(reg)).status).toBe(200)
    const twice = await startClaim(reg)
    expect(twice.status).toBe(409)
    expect((await json(twice)).error).toBe('claimed_or_in_flight')

    const lapsed = await register()
    await app.db
      .updateTable('agent_registrations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', lapsed.registration_id)
      .execute()
    const expired = await startClaim(lapsed)
    expect(expired.status).toBe(410)
    expect((await json(expired)).error).toBe('claim_expired')
    await expect(exchange(lapsed)).rejects.toMatchObject({ error: 'invalid_grant' })

    const badEmail = await startClaim(reg, { claim_token: reg.claim_token, email: 'not-an-email' })
    expect(badEmail.status).toBe(400)
    expect((await json(badEmail)).error).toBe('invalid_request')
  })

  it('answers expired_token once the user code expires, and the page refuses the expired code', async () => {
    const reg = await register()
    const { claim_attempt: attempt } = await json(await startClaim(reg))
    await app.db
      .updateTable('claim_attempts')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('registration_id', '=', reg.registration_id)
      .execute()
    expect(await pollError(reg)).toBe('expired_token')
    const person = new Browser(base)
    const page = await person.submit(await person.get('/agent/identity/verify'), { user_code: attempt.user_code })
    expect(page.status).toBe(410)
    expect(page.html).toContain('expired')
    // A new attempt may start after the old one expired.
    expect((await startClaim(reg)).status).toBe(200)
  })

  it('answers expired_token for an approval the agent did not collect in time', async () => {
    const reg = await register()
    const { claim_attempt: attempt } = await json(await startClaim(reg, { claim_token: reg.claim_token, email: 'late@example.com' }))
    const person = new Browser(base)
    const confirm = await person.signIn(
      app,
      'late@example.com',
      await person.submit(await person.get('/agent/identity/verify'), { user_code: attempt.user_code }),
    )
    expect((await person.submit(confirm, {}, { button: ['decision', 'approve'] })).status).toBe(200)
    await app.db
      .updateTable('claim_attempts')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('registration_id', '=', reg.registration_id)
      .execute()
    expect(await pollError(reg)).toBe('expired_token')
    expect((await startClaim(reg, { claim_token: reg.claim_token, email: 'late@example.com' })).status).toBe(200)
  })

  it('revokes an access token (RFC 7009) for every instance, and answers 200 for unknown tokens', async () => {
    const reg = await register()
    const tokens = await exchange(reg)
    expect((await bearer(tokens.access_token)).status).toBe(200)
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, agentClient(reg), oauth.None(), tokens.access_token, insecure))
    const after = await bearer(tokens.access_token)
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The access token has been revoked", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`,
    )
    const unknown = await fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: 'whatever' }) })
    expect(unknown.status).toBe(200)
    expect(await unknown.text()).toBe('')
    const empty = await fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({}) })
    expect(empty.status).toBe(400)
    expect((await json(empty)).error).toBe('invalid_request')
  })
})
