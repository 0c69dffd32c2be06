import type { FastifyInstance } from 'fastify'
import { sha256Hex } from '../../infra/crypto.ts'
import { invalidGrant, invalidRequest } from '../oauth-errors.ts'
import { issueRefreshToken, revokeFamily, signAccessToken, tokenResponse, type TokenResponse } from '../tokens.ts'
import { grantedScopes, type TokenRequest } from './params.ts'

/**
 * RFC 6749 section 6 with rotation (OAuth 2.0 Security BCP 4.14.2):
 * - every use returns a new refresh token of the same family and retires the old one;
 * - presenting a retired token again means it leaked: the whole family and its access tokens are revoked;
 * - the token belongs to the client presenting it, is unexpired, and `scope` may only narrow it.
 */
export async function refreshTokenGrant(app: FastifyInstance, body: TokenRequest): Promise<TokenResponse> {
  if (!body.refresh_token) throw invalidRequest('The refresh_token parameter is required')
  if (!body.client_id) throw invalidRequest('The client_id parameter is required')
  const tokenHash = sha256Hex(body.refresh_token)

  const current = await app.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
  if (!current || current.client_id !== body.client_id) throw invalidGrant('The refresh token is invalid')
  if (current.status === 'revoked') throw invalidGrant('The refresh token has been revoked')
  if (current.expires_at <= new Date()) throw invalidGrant('The refresh token has expired')
  const scope = grantedScopes(body.scope, current.scope.split(' ').filter(Boolean))

  // Retire it atomically: of two concurrent uses, one wins and the other counts as reuse.
  const retired = await app.db
    .updateTable('refresh_tokens')
    .set({ status: 'used', used_at: new Date() })
    .where('id', '=', current.id)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst()
  if (!retired) {
    await revokeFamily(app.db, current.family_id)
    throw invalidGrant('The refresh token has already been used', 'refresh token reused: family revoked')
  }

  const user = await app.db.selectFrom('users').select('account_id').where('id', '=', current.user_id).executeTakeFirst()
  if (!user) throw invalidGrant('The refresh token is invalid')
  const access = await signAccessToken(app.signer, { subject: current.subject, clientId: current.client_id, audience: current.resource, scope, accountId: user.account_id })
  const refreshToken = await issueRefreshToken(app.db, {
    familyId: current.family_id,
    clientId: current.client_id,
    subject: current.subject,
    userId: current.user_id,
    scope: current.scope.split(' '),
    resource: current.resource,
    access,
  })
  return tokenResponse(access, scope, { refresh_token: refreshToken })
}
