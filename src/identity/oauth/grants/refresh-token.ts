import type { FastifyInstance } from 'fastify'
import { invalidGrant, invalidRequest } from '../oauth-errors.ts'
import { findRefreshToken, retireRefreshToken, revokeFamily } from '../../stores/refresh-tokens.ts'
import { issueTokenPair, type TokenResponse } from './token-response.ts'
import { grantAccount } from '../../stores/users.ts'
import { grantedScopes, type TokenRequest } from './token-request.ts'

/**
 * RFC 6749 section 6 with rotation (OAuth 2.0 Security BCP 4.14.2):
 * - every use returns a new refresh token of the same family and retires the old one;
 * - presenting a retired token again means it leaked: the whole family and its access tokens are revoked;
 * - the token belongs to the client presenting it, is unexpired, and `scope` may only narrow it.
 */
export async function refreshTokenGrant(app: FastifyInstance, body: TokenRequest): Promise<TokenResponse> {
  if (!body.refresh_token) throw invalidRequest('The refresh_token parameter is required')
  if (!body.client_id) throw invalidRequest('The client_id parameter is required')
  const current = await findRefreshToken(app.db, body.refresh_token)
  if (!current || current.client_id !== body.client_id) throw invalidGrant('The refresh token is invalid')
  if (current.status === 'revoked') throw invalidGrant('The refresh token has been revoked')
  if (current.expires_at <= new Date()) throw invalidGrant('The refresh token has expired')
  const scope = grantedScopes(body.scope, current.scope.split(' ').filter(Boolean))

  if (!(await retireRefreshToken(app.db, current.id))) {
    await revokeFamily(app.db, current.family_id)
    throw invalidGrant('The refresh token has already been used', 'refresh token reused: family revoked')
  }

  const accountId = await grantAccount(app.db, current.account_id, current.user_id, current.subject)
  if (!accountId) throw invalidGrant('The person no longer belongs to the account the grant was for')
  return issueTokenPair(app.db, app.signer, {
    familyId: current.family_id,
    clientId: current.client_id,
    subject: current.subject,
    userId: current.user_id,
    accountId,
    scope,
    grantScope: current.scope.split(' '),
    resource: current.resource,
  })
}
