import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import { decodeJwt } from 'jose'
import { expect } from 'vitest'
import { Browser } from '../identity/helpers.ts'

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
export const CLAIM = 'urn:presence:agent-auth:grant-type:claim'
export const MODERN = '2026-07-28'

export interface Registration {
  registration_id: string
  identity_assertion: string
  claim_token: string
}

/** POST /agent/identity with type anonymous. */
export async function registerAgent(base: string): Promise<Registration> {
  const res = await fetch(`${base}/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'anonymous' }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Registration
}

/** The RFC 7523 exchange of the identity assertion for a pre-claim token (mcp:read). */
export async function preClaimToken(base: string, registration: Registration): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: registration.identity_assertion }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

export type Era = 'modern' | 'legacy'

/** The official client over real HTTP: pinned to 2026-07-28, or the plain 2025 handshake. */
export async function connect(base: string, token: string, era: Era = 'modern', options: ClientOptions = {}): Promise<Client> {
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { ...(era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {}), ...options },
  )
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return client
}

/** A raw POST to /mcp, for what the client library would never send. */
export function post(base: string, body: string | object, headers: Record<string, string> = {}) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/**
 * The claim ceremony (INTERFACE.md 5.3): the agent starts it, a person enters the user code in a
 * browser, signs in by email and approves, and the agent's poll answers the post-claim token.
 */
export async function claimAgent(
  app: FastifyInstance,
  base: string,
  registration: Registration,
  email: string,
): Promise<{ token: string; accountId: string; assertion: string }> {
  const started = await fetch(`${base}/agent/identity/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ claim_token: registration.claim_token, email }),
  })
  expect(started.status).toBe(200)
  const { claim_attempt: attempt } = (await started.json()) as { claim_attempt: { user_code: string; verification_uri: string } }
  const person = new Browser(base)
  const entry = await person.get(new URL(attempt.verification_uri).pathname)
  const confirm = await person.signIn(app, email, await person.submit(entry, { user_code: attempt.user_code }))
  const done = await person.submit(confirm, {}, { button: ['decision', 'approve'] })
  expect(done.status).toBe(200)
  // The poll interval is the agent's to honour; the test lets it pass at once.
  await app.db
    .updateTable('claim_attempts')
    .set({ last_polled_at: new Date(Date.now() - 60_000) })
    .where('registration_id', '=', registration.registration_id)
    .execute()
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: CLAIM, claim_token: registration.claim_token }),
  })
  expect(res.status).toBe(200)
  const {
    access_token: token,
    scope,
    identity_assertion: assertion,
  } = (await res.json()) as { access_token: string; scope: string; identity_assertion: string }
  expect(scope).toBe('mcp:read mcp:tools')
  return { token, accountId: decodeJwt(token)['account_id'] as string, assertion }
}

/** A tool's text answer (the first content block), e.g. a tool error's message. */
export function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? ''
}
