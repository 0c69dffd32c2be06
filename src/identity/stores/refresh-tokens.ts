import { randomUUID } from 'node:crypto'
import { newId, randomToken, sha256Hex } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { denyJtis } from '../../infra/revocations.ts'
import type { Signer } from '../../infra/signer.ts'
import { ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL } from '../constants.ts'

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

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
  identity_assertion?: string
  assertion_expires?: string
}

export function tokenResponse(access: SignedAccessToken, scope: string[], extra: Partial<TokenResponse> = {}): TokenResponse {
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, scope: scope.join(' '), ...extra }
}

export interface RefreshGrant {
  familyId: string
  clientId: string
  subject: string
  userId: string
  /** The account the grant acts for. */
  accountId: string
  scope: string[]
  resource: string
  access: SignedAccessToken
}

/** Stores a new refresh token of a family (rotation keeps the family) and returns the secret once. */
export async function issueRefreshToken(db: Db, grant: RefreshGrant): Promise<string> {
  const secret = `rt_${randomToken(32)}`
  await db
    .insertInto('refresh_tokens')
    .values({
      id: newId('rtk'),
      token_hash: sha256Hex(secret),
      family_id: grant.familyId,
      client_id: grant.clientId,
      subject: grant.subject,
      user_id: grant.userId,
      account_id: grant.accountId,
      scope: grant.scope.join(' '),
      resource: grant.resource,
      access_jti: grant.access.jti,
      access_expires_at: grant.access.expiresAt,
      expires_at: new Date(Date.now() + REFRESH_TOKEN_TTL * 1000),
    })
    .execute()
  return secret
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
 * The one token-issuing sequence of every grant: a signed access token, a refresh token of the
 * family stored beside its jti, and the token response (with what the grant adds to it).
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

/**
 * Ends a refresh-token family: every refresh token in it, and the access tokens they minted
 * (RFC 6819 5.2.2.3, OAuth 2.0 Security BCP 4.14: a replayed refresh token revokes the grant).
 */
export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  const rows = await db
    .updateTable('refresh_tokens')
    .set({ status: 'revoked' })
    .where('family_id', '=', familyId)
    .returning(['access_jti', 'access_expires_at'])
    .execute()
  await denyJtis(
    db,
    rows.map((r) => ({ jti: r.access_jti, expiresAt: r.access_expires_at })),
  )
}

/** The revocation group of an agent's pre-claim tokens: completing the claim revokes it. */
export const preClaimGroup = (registrationId: string) => `pre_claim:${registrationId}`

export async function findRefreshToken(db: Db, secret: string) {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', sha256Hex(secret)).executeTakeFirst()
}

/** Retires an active refresh token atomically: of two concurrent uses, one wins and the other counts as reuse. */
export async function retireRefreshToken(db: Db, id: string): Promise<boolean> {
  const retired = await db
    .updateTable('refresh_tokens')
    .set({ status: 'used', used_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst()
  return retired !== undefined
}
