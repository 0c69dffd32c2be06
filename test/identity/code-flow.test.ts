import * as oauth from 'oauth4webapi'
import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { Browser, insecure, json, registeredClient, startLiveApp, type Page } from './helpers.ts'
import { probeRoutes } from './probe.ts'

const { app, base } = await startLiveApp({ plugins: [probeRoutes] })
const redirectUri = 'http://127.0.0.1:9/callback'
const { as, client } = await registeredClient(base, 'Site Builder Desktop', redirectUri)

const person = new Browser(base)
let signedIn = false

interface Started {
  verifier: string
  state: string
  consent: Page
}

/** Opens the authorization URL in the person's browser, signing in the first time; returns the consent page. */
async function openAuthorization(params: Record<string, string> = {}): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint as string)
  const query = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: 'mcp:read mcp:tools',
    state,
    ...params,
  }
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
  let consent = await person.get(url.pathname + url.search)
  if (!signedIn) {
    expect(consent.status).toBe(303)
    expect(consent.location).toMatch(/^\/signin\?return_to=%2Foauth%2Fauthorize%3F/)
    consent = await person.signIn(app, 'builder@example.com', consent)
    signedIn = true
  }
  return { verifier, state, consent }
}

async function allow(started: Started): Promise<URL> {
  const answer = await person.submit(started.consent, {}, { button: ['decision', 'allow'] })
  expect(answer.status).toBe(303)
  return new URL(answer.location as string)
}

async function redeem(callback: URL, started: Started) {
  const params = oauth.validateAuthResponse(as, client, callback, started.state)
  return oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, started.verifier, insecure),
  )
}

const bearer = (token: string, path = '/probe/mcp/read') => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })
const tokenRequest = (values: Record<string, string>) => fetch(`${base}/oauth/token`, { method: 'POST', body: new URLSearchParams(values) })

describe('account OAuth: dynamic registration, PKCE authorization code, refresh, revocation', () => {
  it('registers a public client (RFC 7591) and refuses bad metadata', async () => {
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^cli_/),
      client_name: 'Site Builder Desktop',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://example.com/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['not a url'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      [{ redirect_uris: ['https://example.com/cb'], grant_types: ['implicit'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [] }, 'invalid_request'],
    ]
    for (const [body, error] of cases) {
      const res = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(res.status).toBe(400)
      expect((await json(res)).error).toBe(error)
    }
    const loopback = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'CLI',
        redirect_uris: ['http://[::1]:8080/cb', 'https://app.example.com/cb'],
        software_id: 'ignored',
      }),
    })
    expect(loopback.status).toBe(201)
  })

  it('signs a person in through the pages, shows consent, and redirects with code, state and iss (RFC 9207)', async () => {
    const started = await openAuthorization()
    const { consent } = started
    expect(consent.status).toBe(200)
    expect(consent.html).toContain('Site Builder Desktop')
    expect(consent.html).toContain('mcp:tools')
    expect(consent.html).toContain('127.0.0.1:9')
    expect(consent.$('script').length).toBe(0)
    expect(consent.$('form[method="post"][action="/oauth/authorize"] input[name="_csrf"]').length).toBe(1)
    expect(consent.headers.get('content-security-policy')).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:9(;|$)/)
    const callback = await allow(started)
    expect(callback.origin + callback.pathname).toBe(redirectUri)
    expect(callback.searchParams.get('iss')).toBe(base)
    expect(callback.searchParams.get('state')).toBe(started.state)
    const tokens = await redeem(callback, started)
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'mcp:read mcp:tools',
      refresh_token: expect.stringMatching(/^rt_/),
    })
    const claims = decodeJwt(tokens.access_token)
    expect(claims).toMatchObject({
      iss: base,
      aud: `${base}/mcp`,
      client_id: client.client_id,
      sub: expect.stringMatching(/^usr_/),
      account_id: expect.stringMatching(/^acct_/),
    })
    expect((await bearer(tokens.access_token, '/probe/mcp/tools')).status).toBe(200)
  })

  it('honours the RFC 8707 resource as the audience', async () => {
    const started = await openAuthorization({ resource: `${base}/v1`, scope: 'read:sites' })
    const tokens = await redeem(await allow(started), started)
    expect(decodeJwt(tokens.access_token).aud).toBe(`${base}/v1`)
    expect((await bearer(tokens.access_token, '/probe/v1/sites')).status).toBe(200)
    const wrongAudience = await bearer(tokens.access_token, '/probe/mcp/read')
    expect(wrongAudience.status).toBe(401)
    expect(wrongAudience.headers.get('www-authenticate')).toContain('The access token was not issued for this resource')
  })

  it('rotates refresh tokens; a reused one revokes the whole family and its access tokens', async () => {
    const started = await openAuthorization()
    const first = await redeem(await allow(started), started)
    const second = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token as string, insecure),
    )
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect((await bearer(second.access_token)).status).toBe(200)
    // The first refresh token again: a leak. The family dies.
    const reuse = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      client_id: client.client_id,
    })
    expect(reuse.status).toBe(400)
    expect(reuse.headers.get('cache-control')).toBe('no-store')
    expect((await json(reuse)).error).toBe('invalid_grant')
    await expect(
      oauth
        .refreshTokenGrantRequest(as, client, oauth.None(), second.refresh_token as string, insecure)
        .then((r) => oauth.processRefreshTokenResponse(as, client, r)),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
    expect((await bearer(second.access_token)).status).toBe(401)
    expect((await bearer(first.access_token)).status).toBe(401)
  })

  it('revokes a refresh token (RFC 7009) and with it the grant', async () => {
    const started = await openAuthorization()
    const tokens = await redeem(await allow(started), started)
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token as string, insecure))
    const refused = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client.client_id,
    })
    expect((await json(refused)).error).toBe('invalid_grant')
    expect((await bearer(tokens.access_token)).status).toBe(401)
  })

  it('refuses a missing or wrong PKCE verifier, a redirect_uri mismatch, and a replayed code (which revokes its tokens)', async () => {
    const started = await openAuthorization()
    const code = (await allow(started)).searchParams.get('code') as string
    const base_ = { grant_type: 'authorization_code', code, client_id: client.client_id, redirect_uri: redirectUri }
    // Each failed attempt still spends the code, so use a fresh one per case.
    const missing = await tokenRequest(base_)
    expect(missing.status).toBe(400)
    expect((await json(missing)).error).toBe('invalid_grant')

    const s2 = await openAuthorization()
    const wrong = await tokenRequest({
      ...base_,
      code: (await allow(s2)).searchParams.get('code') as string,
      code_verifier: oauth.generateRandomCodeVerifier(),
    })
    expect((await json(wrong)).error).toBe('invalid_grant')

    const s3 = await openAuthorization()
    const mismatch = await tokenRequest({
      ...base_,
      code: (await allow(s3)).searchParams.get('code') as string,
      code_verifier: s3.verifier,
      redirect_uri: 'http://127.0.0.1:9/other',
    })
    expect((await json(mismatch)).error).toBe('invalid_grant')

    const s4 = await openAuthorization()
    const callback = await allow(s4)
    const tokens = await redeem(callback, s4)
    expect((await bearer(tokens.access_token)).status).toBe(200)
    const replay = await tokenRequest({ ...base_, code: callback.searchParams.get('code') as string, code_verifier: s4.verifier })
    expect(replay.status).toBe(400)
    expect(await json(replay)).toEqual({ error: 'invalid_grant', error_description: 'The authorization code has already been used' })
    expect((await bearer(tokens.access_token)).status).toBe(401)

    const unknownClient = await tokenRequest({ ...base_, client_id: 'cli_unknown', code_verifier: s4.verifier })
    expect(unknownClient.status).toBe(401)
    expect((await json(unknownClient)).error).toBe('invalid_client')
  })

  it('refuses plain PKCE and a missing challenge with a page linking back with the error and iss, never a redirect of its own', async () => {
    for (const params of [
      { code_challenge_method: 'plain' },
      { code_challenge: '' },
      { scope: 'admin' },
      { resource: 'https://elsewhere.example/api' },
      { response_type: 'token' },
    ] as Array<Record<string, string>>) {
      const verifier = oauth.generateRandomCodeVerifier()
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: 'st',
        ...params,
      })
      const res = await person.get(`/oauth/authorize?${query}`)
      // A self-registered client is not trusted with an automatic redirect (RFC 9700 4.11.2): the person follows the link.
      expect(res.status).toBe(400)
      expect(res.location).toBeNull()
      const link = res.$('a[rel="noreferrer"]').attr('href')
      const location = new URL(link as string)
      expect(location.origin + location.pathname).toBe(redirectUri)
      expect(location.searchParams.get('error')).toMatch(/^(invalid_request|invalid_scope|invalid_target|unsupported_response_type)$/)
      expect(location.searchParams.get('iss')).toBe(base)
      expect(location.searchParams.get('state')).toBe('st')
    }
  })

  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect_uri', async () => {
    for (const params of [
      { redirect_uri: 'http://127.0.0.1:9/evil' },
      { redirect_uri: 'https://attacker.example/cb' },
      { client_id: 'cli_nope' },
    ]) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        ...params,
      })
      const res = await person.get(`/oauth/authorize?${query}`)
      expect(res.status).toBe(400)
      expect(res.location).toBeNull()
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    }
  })

  it('answers access_denied when the person denies, and refuses a consent post without the CSRF token', async () => {
    const started = await openAuthorization()
    const denied = await person.submit(started.consent, {}, { button: ['decision', 'deny'] })
    const location = new URL(denied.location as string)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('iss')).toBe(base)

    const forged = await person.submit(started.consent, { _csrf: 'forged' }, { button: ['decision', 'allow'] })
    expect(forged.status).toBe(403)
    expect(forged.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(forged.location).toBeNull()
    // Another browser (no cookies) cannot replay the person's form.
    const other = new Browser(base)
    const stolen = await other.submit(started.consent, {}, { button: ['decision', 'allow'] })
    expect(stolen.status).toBe(403)
  })
})
