import { newId, randomToken, sha256Hex } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { denyJtis } from '../../infra/revocations.ts'
import { REFRESH_TOKEN_TTL } from '../constants.ts'

export interface RefreshGrant {
  familyId: string
  clientId: string
  subject: string
  userId: string
  /** The account the grant acts for. */
  accountId: string
  scope: string[]
  resource: string
  /** The access token issued beside it, which revoking the family revokes too. */
  access: { jti: string; expiresAt: Date }
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
