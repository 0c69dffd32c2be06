import { createServer } from 'node:https'
import tls from 'node:tls'
import type { AddressInfo } from 'node:net'
import * as oauth from 'oauth4webapi'
import { afterAll, describe, expect, it } from 'vitest'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { clientMetadataResolver } from '../../src/identity/oauth/client-metadata.ts'
import { testCertificate } from '../fixtures/sites/serve.ts'
import { Browser, startLiveApp } from './helpers.ts'

// A client's site on loopback over https, with a test certificate this process trusts.
const certificate = testCertificate()
tls.setDefaultCACertificates([...tls.rootCertificates, certificate.cert])
const documents = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }>()
const fetched: string[] = []
const site = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
  fetched.push(req.url ?? '')
  const doc = documents.get(req.url ?? '')
  if (!doc) return res.writeHead(404).end()
  res
    .writeHead(doc.status, { 'content-type': 'application/json', ...doc.headers })
    .end(typeof doc.body === 'string' ? doc.body : JSON.stringify(doc.body))
})
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())))
const origin = `https://localhost:${(site.address() as AddressInfo).port}`
const redirectUri = 'http://127.0.0.1:9/callback'
const clientId = `${origin}/oauth/client.json`
documents.set('/oauth/client.json', {
  status: 200,
  body: { client_id: clientId, client_name: 'Metadata Client', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
})
documents.set('/oauth/mismatch.json', {
  status: 200,
  body: { client_id: `${origin}/oauth/other.json`, client_name: 'Liar', redirect_uris: [redirectUri] },
})
documents.set('/oauth/secret.json', {
  status: 200,
  body: {
    client_id: `${origin}/oauth/secret.json`,
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'client_secret_post',
    client_secret: 'x',
  },
})
documents.set('/oauth/moved.json', { status: 302, body: '', headers: { location: '/oauth/client.json' } })
documents.set('/oauth/huge.json', {
  status: 200,
  body: { client_id: `${origin}/oauth/huge.json`, redirect_uris: [redirectUri], padding: 'x'.repeat(20_000) },
})

const { app, base } = await startLiveApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
const insecure = { [oauth.allowInsecureRequests]: true } as const
const as = await oauth.processDiscoveryResponse(
  new URL(base),
  await oauth.discoveryRequest(new URL(base), { algorithm: 'oauth2', ...insecure }),
)

describe('Client ID Metadata Documents', () => {
  it('runs the code flow for a client named by its https metadata URL', async () => {
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' }
    const verifier = oauth.generateRandomCodeVerifier()
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'mcp:read',
      state: 's1',
    })
    const person = new Browser(base)
    const consent = await person.signIn(app, 'cimd@example.com', await person.get(`/oauth/authorize?${query}`))
    expect(consent.status).toBe(200)
    expect(consent.html).toContain('Metadata Client')
    const answer = await person.submit(consent, {}, { button: ['decision', 'allow'] })
    const params = oauth.validateAuthResponse(as, client, new URL(answer.location as string), 's1')
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure),
    )
    expect(tokens.scope).toBe('mcp:read')
    // Fetched once and kept: the token request used the stored copy.
    expect(fetched.filter((u) => u === '/oauth/client.json').length).toBe(1)
  })

  it('refuses documents that do not name themselves, carry a secret, redirect or are too large', async () => {
    for (const path of ['/oauth/mismatch.json', '/oauth/secret.json', '/oauth/moved.json', '/oauth/huge.json', '/oauth/missing.json']) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: `${origin}${path}`,
        redirect_uri: redirectUri,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      })
      const res = await app.inject({ method: 'GET', url: `/oauth/authorize?${query}` })
      expect(res.statusCode, path).toBe(400)
      expect(res.headers['location'], path).toBeUndefined()
    }
  })

  it('never fetches loopback or private addresses outside test and development mode', async () => {
    const fetcher = createSafeFetcher({ timeoutMs: 2000 })
    const before = fetched.length
    expect(await clientMetadataResolver(app, fetcher)(`${origin}/oauth/client-2.json`)).toBeUndefined()
    expect(await clientMetadataResolver(app, fetcher)('https://127.0.0.1/oauth/client.json')).toBeUndefined()
    expect(fetched.length).toBe(before)
    await fetcher.close()
  })
})
