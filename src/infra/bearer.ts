import { errors as joseErrors } from 'jose'
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { problem } from '../errors.ts'
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
 * Failures answer 401 with a WWW-Authenticate challenge naming the resource metadata (RFC 9728)
 * and the scopes; a valid token without the scopes answers 403 insufficient_scope.
 */
export function requireBearer(options: BearerOptions): preHandlerAsyncHookHandler {
  const required = options.scopes ?? []
  const metadata = resourceMetadataUrl(options.audience)
  const scope = required.length ? required.join(' ') : undefined

  const refuse = (reply: FastifyReply, status: 401 | 403, error: string | undefined, description: string) => {
    reply.header('www-authenticate', challenge({ error, error_description: error ? description : undefined, resource_metadata: metadata, scope }))
    return reply
      .code(status)
      .type('application/problem+json; charset=utf-8')
      .send(problem(status, error ?? 'invalid_token', description))
  }

  return async function bearerGuard(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers.authorization
    // RFC 6750 3.1: a request without credentials gets a challenge with no error code.
    if (!header) return refuse(reply, 401, undefined, 'A bearer access token is required')
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)
    if (!match?.[1]) return refuse(reply, 401, 'invalid_request', 'The Authorization header is not a bearer token')

    const app = request.server
    let claims: Record<string, unknown>
    try {
      const verified = await app.signer.verify(match[1], { audience: options.audience, typ: 'at+jwt' })
      claims = verified.payload as Record<string, unknown>
    } catch (error) {
      const description =
        error instanceof joseErrors.JWTExpired
          ? 'The access token has expired'
          : error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud'
            ? 'The access token was not issued for this resource'
            : 'The access token is invalid'
      request.log.info({ reason: (error as Error).message }, 'bearer token refused')
      return refuse(reply, 401, 'invalid_token', description)
    }

    const jti = claims['jti']
    const sub = claims['sub']
    const clientId = claims['client_id']
    const scopeClaim = claims['scope']
    if (typeof jti !== 'string' || typeof sub !== 'string' || typeof clientId !== 'string' || typeof scopeClaim !== 'string') {
      return refuse(reply, 401, 'invalid_token', 'The access token is invalid')
    }
    // The denylist holds single tokens by jti and groups of tokens (e.g. an agent's pre-claim tokens).
    const group = claims['revocation_group']
    if (await isRevoked(app.db, jti, typeof group === 'string' ? group : undefined)) return refuse(reply, 401, 'invalid_token', 'The access token has been revoked')

    const scopes = scopeClaim.split(' ').filter(Boolean)
    if (!required.every((s) => scopes.includes(s))) {
      return refuse(reply, 403, 'insufficient_scope', `The access token lacks the scope ${required.join(' ')}`)
    }
    const accountId = claims['account_id']
    request.auth = {
      subject: sub,
      clientId,
      scopes,
      ...(typeof accountId === 'string' ? { accountId } : {}),
      jti,
      expiresAt: new Date((claims['exp'] as number) * 1000),
    }
  }
}
