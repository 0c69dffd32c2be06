import { newId, sha256Hex } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { AUTHORIZATION_CODE_TTL } from '../constants.ts'

export interface NewAuthorizationCode {
  code: string
  clientId: string
  userId: string
  /** The account the person chose on the consent page. */
  accountId: string
  redirectUri: string
  codeChallenge: string
  scope: string[]
  resource: string
}

/** Stores a code by its hash, starting a new token family. */
export async function insertAuthorizationCode(db: Db, grant: NewAuthorizationCode): Promise<void> {
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: sha256Hex(grant.code),
      client_id: grant.clientId,
      user_id: grant.userId,
      account_id: grant.accountId,
      redirect_uri: grant.redirectUri,
      code_challenge: grant.codeChallenge,
      scope: grant.scope.join(' '),
      resource: grant.resource,
      family_id: newId('fam'),
      expires_at: new Date(Date.now() + AUTHORIZATION_CODE_TTL * 1000),
    })
    .execute()
}

/** Marks the code used and returns it, atomically: of two concurrent redemptions only one gets it. */
export async function redeemAuthorizationCode(db: Db, codeHash: string) {
  return db
    .updateTable('authorization_codes')
    .set({ used_at: new Date() })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** A code that exists but was used already: its family is what a replay revokes. */
export async function usedAuthorizationCode(db: Db, codeHash: string) {
  return db.selectFrom('authorization_codes').select(['family_id', 'client_id']).where('code_hash', '=', codeHash).executeTakeFirst()
}
