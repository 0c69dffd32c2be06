import type { FastifyInstance } from 'fastify'
import { sha256Hex } from '../../../infra/crypto.ts'
import { redeemAuthorizationCode, usedAuthorizationCode } from '../../stores/authorization-codes.ts'
import { findClient } from '../../stores/clients.ts'
import { invalidClient, invalidGrant, invalidRequest } from '../oauth-errors.ts'
import { verifyPkce } from '../pkce.ts'
import { revokeFamily } from '../../stores/refresh-tokens.ts'
import { issueTokenPair, type TokenResponse } from './token-response.ts'
import { grantAccount } from '../../stores/users.ts'
import type { TokenRequest } from './token-request.ts'

/**
 * RFC 6749 section 4.1.3 with RFC 7636 and RFC 8707:
 * - the client is known (public client: client_id only) and is the one the code was issued to;
 * - the code exists, is unexpired and is used once; a replayed code revokes what it issued (4.1.2);
 * - redirect_uri is the exact string of the authorization request;
 * - code_verifier matches the S256 challenge; a missing verifier fails like a wrong one;
 * - the access token's audience is the resource chosen at the authorization request.
 */
export async function authorizationCodeGrant(app: FastifyInstance, body: TokenRequest): Promise<TokenResponse> {
  if (!body.client_id) throw invalidRequest('The client_id parameter is required')
  if (!body.code) throw invalidRequest('The code parameter is required')
  if (!body.redirect_uri) throw invalidRequest('The redirect_uri parameter is required')
  const client = await findClient(app, body.client_id)
  if (!client) throw invalidClient(`unknown client ${body.client_id}`)

  const codeHash = sha256Hex(body.code)
  const code = await redeemAuthorizationCode(app.db, codeHash)
  if (!code) {
    const replayed = await usedAuthorizationCode(app.db, codeHash)
    if (replayed && replayed.client_id === client.clientId) {
      await revokeFamily(app.db, replayed.family_id)
      throw invalidGrant('The authorization code has already been used', 'code replayed: its tokens are revoked')
    }
    throw invalidGrant('The authorization code is invalid')
  }
  if (code.client_id !== client.clientId) throw invalidGrant('The authorization code was issued to another client')
  if (code.expires_at <= new Date()) throw invalidGrant('The authorization code has expired')
  if (code.redirect_uri !== body.redirect_uri) throw invalidGrant('The redirect_uri does not match the authorization request')
  if (!body.code_verifier || !verifyPkce(body.code_verifier, code.code_challenge)) throw invalidGrant('PKCE verification failed')

  const accountId = await grantAccount(app.db, code.account_id, code.user_id, code.user_id)
  if (!accountId) throw invalidGrant('The person no longer belongs to the account the authorization was for')
  const scope = code.scope.split(' ').filter(Boolean)
  return issueTokenPair(app.db, app.signer, {
    familyId: code.family_id,
    clientId: client.clientId,
    subject: code.user_id,
    userId: code.user_id,
    accountId,
    scope,
    resource: code.resource,
  })
}
