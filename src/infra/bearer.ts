import { errors as joseErrors } from 'jose'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { errors, withHeaders } from '../errors.ts'
import { isRevoked } from './revocations.ts'

/** Who a verified bearer token speaks for; set on `request.auth` by `requireBearer`. */
export interface BearerAuth {
  /** `sub`: a user (`usr_…`) or an agent registration (`reg_…`). */
  subject: string
  clientId: string
  scopes: string[]
  /** The account the token acts for; absent for an agent that no person has claimed yet. */
  accountId?: string
  jti: string
  expiresAt: Date
  /** The resource the token was verified for. */
  audience: string
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: BearerAuth
  }
}

export interface BearerOptions {
  /** The resource indicator the token must be issued for (its `aud`), e.g. `${BASE_URL}/mcp`. */
  audience: string
  /** Every one of these scopes is required. */
  scopes?: string[]
}

/** RFC 9728 section 5.1: the metadata URL of a resource is its path appended to the well-known prefix. */
export function resourceMetadataUrl(audience: string): string {
  const url = new URL(audience)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}

const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`

export function challenge(parts: Record<string, string | undefined>): string {
  const params = Object.entries(parts)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${quote(value)}`)
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer'
}

/**
 * The guard of /mcp and /v1 (RFC 6750, RFC 9068): a bearer token signed by this service's key
 * (RS256 only: `none` and HMAC tokens never verify), issued by BASE_URL, for this audience,
 * with typ at+jwt, not expired and not on the revocation list that all instances share (by jti,
 * or by the token's `revocation_group`; see revocations.ts for how fresh that answer is).
 * Failures throw the registry's 401 with a WWW-Authenticate challenge naming the resource
 * metadata (RFC 9728) and the scopes; a valid token without the scopes throws 403 insufficient_scope.
 */
export async function verifyBearer(request: FastifyRequest, options: BearerOptions): Promise<BearerAuth> {
  const required = options.scopes ?? []
  // The challenge (its metadata URL parsed from the audience) is made only for a refusal.
  const refuse: Refuse = (error, description) => refusal(options.audience, required)(error, description)
  const header = request.headers.authorization
  // RFC 6750 3.1: a request without credentials gets a challenge with no error code.
  if (!header) throw refuse(undefined, 'A bearer access token is required')
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)
  if (!match?.[1]) throw refuse('invalid_request', 'The Authorization header is not a bearer token')

  const claims = await verifiedClaims(request, match[1], options.audience, refuse)
  const { jti, sub, client_id: clientId, scope: scopeClaim } = claims
  if (typeof jti !== 'string' || typeof sub !== 'string' || typeof clientId !== 'string' || typeof scopeClaim !== 'string') {
    throw refuse('invalid_token', 'The access token is invalid')
  }
  // The denylist holds single tokens by jti and groups of tokens (e.g. an agent's pre-claim tokens).
  const group = claims['revocation_group']
  if (await isRevoked(request.server.db, jti, typeof group === 'string' ? group : undefined)) throw refuse('invalid_token', 'The access token has been revoked')

  const scopes = scopeClaim.split(' ').filter(Boolean)
  if (!required.every((s) => scopes.includes(s))) throw refuse('insufficient_scope', `The access token lacks the scope ${required.join(' ')}`)
  const accountId = claims['account_id']
  return {
    subject: sub,
    clientId,
    scopes,
    ...(typeof accountId === 'string' ? { accountId } : {}),
    jti,
    expiresAt: new Date((claims['exp'] as number) * 1000),
    audience: options.audience,
  }
}

type Refuse = (error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined, description: string) => Error

/** The refusals of one resource, each with its challenge. */
function refusal(audience: string, required: readonly string[]): Refuse {
  const metadata = resourceMetadataUrl(audience)
  const scope = required.length ? required.join(' ') : undefined
  return (error, description) => {
    const headers = { 'www-authenticate': challenge({ error, error_description: error ? description : undefined, resource_metadata: metadata, scope }) }
    const refused =
      error === 'insufficient_scope' ? new errors.insufficientScope(description) : error === 'invalid_request' ? new errors.invalidBearerRequest(description) : new errors.invalidToken(description)
    return withHeaders(refused, headers)
  }
}

/** The token's claims once its signature, issuer, audience, type and expiry hold. */
async function verifiedClaims(request: FastifyRequest, token: string, audience: string, refuse: Refuse): Promise<Record<string, unknown>> {
  try {
    const verified = await request.server.signer.verify(token, { audience, typ: 'at+jwt' })
    return verified.payload as Record<string, unknown>
  } catch (error) {
    const description =
      error instanceof joseErrors.JWTExpired
        ? 'The access token has expired'
        : error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud'
          ? 'The access token was not issued for this resource'
          : 'The access token is invalid'
    request.log.info({ reason: (error as Error).message }, 'bearer token refused')
    throw refuse('invalid_token', description)
  }
}

/** `verifyBearer` as a route's hook: the verified token lands on `request.auth`. */
export function requireBearer(options: BearerOptions): preHandlerAsyncHookHandler {
  return async function bearerGuard(request) {
    request.auth = await verifyBearer(request, options)
  }
}
