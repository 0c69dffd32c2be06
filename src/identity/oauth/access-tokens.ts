import { randomUUID } from 'node:crypto'
import type { Signer } from '../../infra/signer.ts'
import { ACCESS_TOKEN_TTL } from '../constants.ts'

export interface AccessTokenClaims {
  subject: string
  clientId: string
  audience: string
  scope: string[]
  accountId?: string
  expiresIn?: number
  jti?: string
  /** Names a group that can be revoked at once (the bearer guard checks it beside the jti). */
  revocationGroup?: string
}

export interface SignedAccessToken {
  token: string
  jti: string
  expiresIn: number
  expiresAt: Date
}

/**
 * A token id: 122 random bits from Node's batched UUID source, cheaper per token than a fresh
 * read of the random device (the token endpoint issues thousands a second).
 */
export const newJti = () => `at_${randomUUID()}`

/** An RFC 9068 JWT access token: typ at+jwt, iss, sub, aud, client_id, jti, scope, iat, exp. */
export async function signAccessToken(signer: Signer, claims: AccessTokenClaims): Promise<SignedAccessToken> {
  const jti = claims.jti ?? newJti()
  const expiresIn = claims.expiresIn ?? ACCESS_TOKEN_TTL
  const { token, payload } = await signer.signJwt(
    {
      client_id: claims.clientId,
      scope: claims.scope.join(' '),
      ...(claims.accountId ? { account_id: claims.accountId } : {}),
      ...(claims.revocationGroup ? { revocation_group: claims.revocationGroup } : {}),
    },
    { typ: 'at+jwt', subject: claims.subject, audience: claims.audience, expiresInSeconds: expiresIn, jti },
  )
  // The expiry the token states (see expiryOf), taken from the claims signed rather than decoded back.
  return { token, jti, expiresIn, expiresAt: new Date((payload.exp as number) * 1000) }
}

/** The revocation group of an agent's pre-claim tokens: completing the claim revokes it. */
export const preClaimGroup = (registrationId: string) => `pre_claim:${registrationId}`
