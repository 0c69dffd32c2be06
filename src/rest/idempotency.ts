import canonicalize from 'canonicalize'
import { Type } from 'typebox'
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import { errors } from '../errors.ts'
import { sha256Hex } from '../infra/crypto.ts'
import type { ApiPrincipal } from '../frame/index.ts'
import { claimKey, type KeyOwner, openStoredBody, releaseKey, storeAnswer } from './idempotency-store.ts'

export const MAX_KEY_LENGTH = 255

/** The header as OpenAPI shows it on every POST. */
export const IdempotencyKeyHeader = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: MAX_KEY_LENGTH,
    description: 'Makes a retried POST safe: the same key and body within 24 hours replay the first answer.',
  }),
)

/** Headers of an answer that a replay repeats. */
const KEPT_HEADERS = ['content-type', 'location', 'etag'] as const

const claimedKeys = new WeakMap<FastifyRequest, string>()

/** The credential a key belongs to: an API token, or the person or agent an OAuth token speaks for. */
export function keyOwnerOf(principal: ApiPrincipal): KeyOwner {
  return { accountId: principal.accountId, caller: principal.kind === 'api_token' ? principal.tokenId : principal.subject }
}

/** The key this POST claimed, whose answer is still to be stored; undefined without one. */
export function claimedKeyOf(request: FastifyRequest): string | undefined {
  return claimedKeys.get(request)
}

/** The answer was stored in the change's own transaction (see answerChange): onSend leaves it. */
export function answerStored(request: FastifyRequest): void {
  claimedKeys.delete(request)
}

/** How a stored answer is written: what a replay sends besides status and body. */
export function keptHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = String(value)
  }
  return headers
}

/**
 * The fingerprint of a request: method, concrete path with query, and the body in RFC 8785
 * canonical form (so key order and whitespace do not make two equal bodies differ).
 */
function fingerprint(request: FastifyRequest): string {
  return sha256Hex(`${request.method} ${request.url}\n${canonicalBody(request.body ?? null)}`)
}

/**
 * RFC 8785 form of a body; one it cannot express (a lone surrogate in a route's unvalidated
 * body) is fingerprinted by its plain JSON, which still tells two bodies apart.
 */
function canonicalBody(body: unknown): string {
  try {
    return canonicalize(body) ?? ''
  } catch {
    return `json:${JSON.stringify(body)}`
  }
}

function replay(reply: FastifyReply, status: number, headers: string, body: string): FastifyReply {
  // Status, headers and body as first sent; the body was stored sealed.
  for (const [name, value] of Object.entries(JSON.parse(headers) as Record<string, string>)) reply.header(name, value)
  return reply.code(status).header('idempotent-replayed', 'true').send(body)
}

/**
 * Idempotency-Key on every POST (DESIGN.md 7), after authentication and validation:
 * - a new key is claimed; the answer of a change is stored in the change's own transaction
 *   (answerChange in audit.ts), any other answer when it is sent (5xx answers are not stored,
 *   so a retry runs again);
 * - the same key and body replay the stored status, body and headers with Idempotent-Replayed;
 * - another body: 422 idempotency_key_reused; the first request still running: 409
 *   idempotency_in_progress.
 * Keys belong to the credential that sent them (keyOwnerOf): another member, or another token of
 * the same member, never sees their answer. A replay comes after the route's own authorization
 * (the /v1 onRequest hook), so a caller whose role or scope no longer allows the call gets the
 * refusal it would get without the key.
 */
export const idempotencyPreHandler: preHandlerAsyncHookHandler = async function (request, reply) {
  if (request.method !== 'POST') return
  const key = request.headers['idempotency-key']
  if (key === undefined || !request.principal) return
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new errors.badRequest(`The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters`)
  }
  const owner = keyOwnerOf(request.principal)
  const hash = fingerprint(request)
  const outcome = await claimKey(request.server.db, owner, key, hash)
  if (outcome.claimed) {
    claimedKeys.set(request, key)
    return
  }
  const stored = outcome.stored
  if (!stored || stored.request_hash !== hash) throw new errors.idempotencyKeyReused('This Idempotency-Key was used with another request')
  if (stored.state === 'processing' || stored.status === null) {
    reply.header('retry-after', '1')
    throw new errors.idempotencyInProgress('A request with this Idempotency-Key is still being processed')
  }
  const body = stored.body ? openStoredBody(request.server.keyring, owner, key, stored.body) : ''
  return replay(reply, stored.status, stored.headers ?? '{}', body)
}

export const idempotencyOnSend: onSendAsyncHookHandler<unknown> = async function (request, reply, payload) {
  const key = claimedKeys.get(request)
  if (key === undefined) return payload
  claimedKeys.delete(request)
  const { db, keyring } = request.server
  const owner = keyOwnerOf(request.principal)
  if (reply.statusCode >= 500 || (payload != null && typeof payload !== 'string')) {
    await releaseKey(db, owner, key)
    return payload
  }
  await storeAnswer(db, keyring, owner, key, { status: reply.statusCode, headers: keptHeaders(reply), body: payload ?? '' })
  return payload
}
