import { errors as joseErrors } from 'jose'
import type { FastifyInstance } from 'fastify'
import { assertionAudience } from '../../agents/assertions.ts'
import { AGENT_REST_SCOPES, IDENTITY_ASSERTION_TYP, POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, resources } from '../../constants.ts'
import { invalidGrant, invalidRequest, OAuthError } from '../oauth-errors.ts'
import { newJti, preClaimGroup, signAccessToken } from '../access-tokens.ts'
import { tokenResponse, type TokenResponse } from './token-response.ts'
import { ShortCache } from './short-cache.ts'
import { grantedScopes, MAX_ASSERTION_LENGTH, type TokenRequest } from './token-request.ts'
import { registrationById } from '../../stores/registrations.ts'

/**
 * RFC 7523 section 2.1: an agent exchanges its identity assertion for an access token.
 * - the assertion is an RS256 JWT of this issuer, typ identity-assertion+jwt, aud the token endpoint, not expired (3, items 1-5);
 * - version 1 (anonymous) works only while the registration is unclaimed and within its 24 hours;
 * - version 2 (claimed) works only for a claimed registration and grants the post-claim scopes;
 * - `scope` may narrow the grant; `resource` (RFC 8707) names the MCP server (the default) or,
 *   for a claimed agent only, the REST API, where the token acts for the person's account with
 *   AGENT_REST_SCOPES (token and webhook management stay with people and API tokens).
 */
export async function jwtBearerGrant(app: FastifyInstance, body: TokenRequest): Promise<TokenResponse> {
  if (!body.assertion) throw invalidRequest('The assertion parameter is required')
  if (body.assertion.length > MAX_ASSERTION_LENGTH) throw invalidRequest('The assertion is too long')
  // An assertion verified before is taken from memory without waiting on a promise.
  const claims = verifiedAssertions.get(body.assertion) ?? (await verifyAssertion(app, body.assertion))
  const registrationId = claims['sub']
  const version = claims['ver']
  if (typeof registrationId !== 'string' || (version !== 1 && version !== 2)) throw invalidGrant('The assertion is invalid')

  const { mcp, rest } = resources(app.config)
  const audience = body.resource ?? mcp
  if (audience !== mcp && audience !== rest)
    throw new OAuthError('invalid_target', `Agent tokens are issued for ${mcp} and, once claimed, ${rest}`)
  if (audience === rest && version === 1)
    throw new OAuthError('invalid_target', 'An unclaimed agent acts for no account: ask its person to claim it first')
  const allowed = audience === rest ? AGENT_REST_SCOPES : version === 1 ? PRE_CLAIM_SCOPES : POST_CLAIM_SCOPES
  const scope = grantedScopes(body.scope, allowed)
  const jti = newJti()

  if (version === 1) {
    // Every pre-claim token names the registration's revocation group, which completing the
    // claim revokes: the guard refuses such a token whenever it was signed. The registration is
    // read only for a clear answer here, so an unclaimed one may be remembered for a few seconds.
    const [usable, access] = await Promise.all([
      anonymousRegistration(app, registrationId),
      signAccessToken(app.signer, {
        subject: registrationId,
        clientId: registrationId,
        audience: mcp,
        scope,
        jti,
        revocationGroup: preClaimGroup(registrationId),
      }),
    ])
    if (!usable) throw invalidGrant('The registration has been claimed, has lapsed or does not exist')
    return tokenResponse(access, scope)
  }

  const [registration, access] = await Promise.all([
    registrationById(app.db, registrationId),
    signAccessToken(app.signer, {
      subject: registrationId,
      clientId: registrationId,
      audience,
      scope,
      jti,
      accountId: typeof claims['account_id'] === 'string' ? claims['account_id'] : undefined,
    }),
  ])
  if (registration?.status !== 'claimed' || registration.account_id !== claims['account_id'])
    throw invalidGrant('The registration is not claimed')
  return tokenResponse(access, scope)
}

/** Verified assertions by their exact text: the same bytes carry the same valid signature until exp. */
const verifiedAssertions = new ShortCache<Record<string, unknown>>(10_000)
/** Registrations seen unclaimed and unexpired, for at most REGISTRATION_RECHECK_MS. */
const anonymousRegistrations = new ShortCache<true>(10_000)
const REGISTRATION_RECHECK_MS = 5000

async function verifyAssertion(app: FastifyInstance, assertion: string): Promise<Record<string, unknown>> {
  try {
    const { payload } = await app.signer.verify(assertion, {
      audience: assertionAudience(app.signer.issuer),
      typ: IDENTITY_ASSERTION_TYP,
      clockToleranceSeconds: 0,
    })
    if (typeof payload.exp === 'number') verifiedAssertions.set(assertion, payload as Record<string, unknown>, payload.exp * 1000)
    return payload as Record<string, unknown>
  } catch (error) {
    const description = error instanceof joseErrors.JWTExpired ? 'The assertion has expired' : 'The assertion is invalid'
    throw invalidGrant(description, (error as Error).message)
  }
}

/** Called when this instance completes a claim; other instances notice within REGISTRATION_RECHECK_MS. */
export function forgetRegistration(registrationId: string): void {
  anonymousRegistrations.delete(registrationId)
}

async function anonymousRegistration(app: FastifyInstance, registrationId: string): Promise<boolean> {
  if (anonymousRegistrations.get(registrationId)) return true
  const row = await registrationById(app.db, registrationId)
  const usable = row?.status === 'anonymous' && row.expires_at > new Date()
  if (usable) anonymousRegistrations.set(registrationId, true, Math.min(Date.now() + REGISTRATION_RECHECK_MS, row.expires_at.getTime()))
  return usable
}
