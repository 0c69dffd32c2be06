import { newId, sha256Hex, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'

/** One-time sign-in codes, stored as a hash bound to their challenge id. */

export const challengeCodeHash = (challengeId: string, code: string) => sha256Hex(`${challengeId}:${code}`)

export async function countRecentChallenges(db: Db, emailHash: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('sign_in_challenges')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('email_hash', '=', emailHash)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertChallenge(
  db: Db,
  keyring: Keyring,
  challenge: { emailHash: string; email: string; code: string; returnTo: string; expiresAt: Date },
): Promise<string> {
  const id = newId('sic')
  await db
    .insertInto('sign_in_challenges')
    .values({
      id,
      email_hash: challenge.emailHash,
      email_sealed: keyring.seal(challenge.email, `sign_in_challenges.email:${id}`),
      code_hash: challengeCodeHash(id, challenge.code),
      return_to: challenge.returnTo,
      expires_at: challenge.expiresAt,
    })
    .execute()
  return id
}

export async function findChallenge(db: Db, id: string) {
  return db.selectFrom('sign_in_challenges').selectAll().where('id', '=', id).executeTakeFirst()
}

export const challengeEmail = (keyring: Keyring, challenge: { id: string; email_sealed: string }) =>
  keyring.open(challenge.email_sealed, `sign_in_challenges.email:${challenge.id}`)

/** Counts one try before the comparison, so parallel guesses cannot exceed the budget; the tries made, or undefined when none is left. */
export async function countChallengeTry(db: Db, id: string, maxTries: number): Promise<number | undefined> {
  const counted = await db
    .updateTable('sign_in_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('attempts', '<', maxTries)
    .where('consumed_at', 'is', null)
    .returning('attempts')
    .executeTakeFirst()
  return counted?.attempts
}

/** Uses the challenge once; false when it was used already. */
export async function consumeChallenge(db: Db, id: string): Promise<boolean> {
  const consumed = await db
    .updateTable('sign_in_challenges')
    .set({ consumed_at: new Date() })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return consumed !== undefined
}
