import { errors as joseErrors } from 'jose'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { errors, withHeaders } from '../errors.ts'
import { isRevoked, knownClean } from '../infra/revocations.ts'

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

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i
const ACCESS_TOKEN_TYP = 'at+jwt'

/** The identifying claims of a verified token, or undefined when one is missing or not a string. */
function identityOf(
  claims: Record<string, unknown>,
): { jti: string; sub: string; clientId: string; scope: string; group: string | undefined } | undefined {
  const { jti, sub, client_id: clientId, scope } = claims
  if (typeof jti !== 'string' || typeof sub !== 'string' || typeof clientId !== 'string' || typeof scope !== 'string') return undefined
  const group = claims['revocation_group']
  return { jti, sub, clientId, scope, group: typeof group === 'string' ? group : undefined }
}

function bearerAuth(claims: Record<string, unknown>, identity: NonNullable<ReturnType<typeof identityOf>>, audience: string): BearerAuth {
  const accountId = claims['account_id']
  return {
    subject: identity.sub,
    clientId: identity.clientId,
    scopes: identity.scope.split(' ').filter(Boolean),
    ...(typeof accountId === 'string' ? { accountId } : {}),
    jti: identity.jti,
    expiresAt: new Date((claims['exp'] as number) * 1000),
    audience,
  }
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
  return rememberedBearer(request, options) ?? (await checkBearer(request, options))
}

/**
 * `verifyBearer`'s answer when it needs no waiting: a token the signer verified before for this
 * audience, found off the denylist within the last second (revocations.ts) and holding the
 * scopes. An agent's calls come in bursts with one token, and the full check's chain of promises
 * was a measurable share of a call. Anything else is undefined and takes the full check, which
 * also makes every refusal.
 */
export function rememberedBearer(request: FastifyRequest, options: BearerOptions): BearerAuth | undefined {
  const token = BEARER.exec(request.headers.authorization ?? '')?.[1]
  if (!token) return undefined
  const claims = request.server.signer.remembered(token, { audience: options.audience, typ: ACCESS_TOKEN_TYP })?.payload as
    | Record<string, unknown>
    | undefined
  const identity = claims && identityOf(claims)
  if (!claims || !identity || !knownClean(identity.jti, identity.group)) return undefined
  const auth = bearerAuth(claims, identity, options.audience)
  return (options.scopes ?? []).every((s) => auth.scopes.includes(s)) ? auth : undefined
}

async function checkBearer(request: FastifyRequest, options: BearerOptions): Promise<BearerAuth> {
  const required = options.scopes ?? []
  // The challenge (its metadata URL parsed from the audience) is made only for a refusal.
  const refuse: Refuse = (error, description) => refusal(options.audience, required)(error, description)
  const header = request.headers.authorization
  // RFC 6750 3.1: a request without credentials gets a challenge with no error code.
  if (!header) throw refuse(undefined, 'A bearer access token is required')
  const match = BEARER.exec(header)
  if (!match?.[1]) throw refuse('invalid_request', 'The Authorization header is not a bearer token')

  const claims = await verifiedClaims(request, match[1], options.audience, refuse)
  const identity = identityOf(claims)
  if (!identity) throw refuse('invalid_token', 'The access token is invalid')
  // The denylist holds single tokens by jti and groups of tokens (e.g. an agent's pre-claim tokens).
  if (await isRevoked(request.server.db, identity.jti, identity.group)) throw refuse('invalid_token', 'The access token has been revoked')

  const auth = bearerAuth(claims, identity, options.audience)
  if (!required.every((s) => auth.scopes.includes(s)))
    throw refuse('insufficient_scope', `The access token lacks the scope ${required.join(' ')}`)
  return auth
}

type Refuse = (error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | undefined, description: string) => Error

/** The refusals of one resource, each with its challenge. */
function refusal(audience: string, required: readonly string[]): Refuse {
  const metadata = resourceMetadataUrl(audience)
  const scope = required.length ? required.join(' ') : undefined
  return (error, description) => {
    const headers = {
      'www-authenticate': challenge({ error, error_description: error ? description : undefined, resource_metadata: metadata, scope }),
    }
    const refused =
      error === 'insufficient_scope'
        ? new errors.insufficientScope(description)
        : error === 'invalid_request'
          ? new errors.invalidBearerRequest(description)
          : new errors.invalidToken(description)
    return withHeaders(refused, headers)
  }
}

/** The token's claims once its signature, issuer, audience, type and expiry hold. */
async function verifiedClaims(request: FastifyRequest, token: string, audience: string, refuse: Refuse): Promise<Record<string, unknown>> {
  try {
    const verified = await request.server.signer.verify(token, { audience, typ: ACCESS_TOKEN_TYP })
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
    request.auth = rememberedBearer(request, options) ?? (await checkBearer(request, options))
  }
}
