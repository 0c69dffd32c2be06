import { Type, type Static } from 'typebox'
import type { Db } from '../../../infra/db.ts'
import type { Signer } from '../../../infra/signer.ts'
import { issueRefreshToken } from '../../stores/refresh-tokens.ts'
import { signAccessToken, type SignedAccessToken } from '../access-tokens.ts'

/** RFC 6749 section 5.1, with the v2 identity assertion a completed claim adds. */
export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1 }),
    scope: Type.String(),
    refresh_token: Type.Optional(Type.String()),
    identity_assertion: Type.Optional(Type.String({ description: 'v2 identity assertion, after a completed claim' })),
    assertion_expires: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
)
export type TokenResponse = Static<typeof TokenResponse>

export function tokenResponse(access: SignedAccessToken, scope: string[], extra: Partial<TokenResponse> = {}): TokenResponse {
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, scope: scope.join(' '), ...extra }
}

/** Who and what a pair of tokens is for, as a grant of every kind (code, refresh, claim) knows it. */
export interface TokenPairGrant {
  familyId: string
  clientId: string
  subject: string
  userId: string
  accountId: string
  /** The audience of the access token, which the refresh token keeps. */
  resource: string
  /** The scope the access token carries and the answer names. */
  scope: string[]
  /** The scope the refresh token keeps, when wider than `scope` (a refresh that asked for less keeps the whole grant). */
  grantScope?: string[]
}

/**
 * The one token-issuing sequence of every grant that hands out a refresh token: a signed access
 * token, a refresh token of the family stored beside its jti, and the token response (with what
 * the grant adds to it).
 */
export async function issueTokenPair(
  db: Db,
  signer: Signer,
  grant: TokenPairGrant,
  extra: Partial<TokenResponse> = {},
): Promise<TokenResponse> {
  const access = await signAccessToken(signer, {
    subject: grant.subject,
    clientId: grant.clientId,
    audience: grant.resource,
    scope: grant.scope,
    accountId: grant.accountId,
  })
  const refreshToken = await issueRefreshToken(db, { ...grant, scope: grant.grantScope ?? grant.scope, access })
  return tokenResponse(access, grant.scope, { refresh_token: refreshToken, ...extra })
}
