import { newId, sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'

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

/** When the oldest of the address's challenges since `since` was made (when the daily cap frees a code again). */
export async function oldestChallengeSince(db: Db, emailHash: string, since: Date): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sign_in_challenges')
    .select((eb) => eb.fn.min('created_at').as('oldest'))
    .where('email_hash', '=', emailHash)
    .where('created_at', '>', since)
    .executeTakeFirst()
  return row?.oldest ? new Date(row.oldest as unknown as string) : undefined
}

/** Whether the address is due the warning mail: true at most once a day (the row is claimed in one statement). */
export async function claimSignInWarning(db: Db, emailHash: string, now = new Date()): Promise<boolean> {
  const claimed = await db
    .insertInto('sign_in_warnings')
    .values({ email_hash: emailHash, warned_at: now })
    .onConflict((oc) =>
      oc
        .column('email_hash')
        .doUpdateSet({ warned_at: now })
        .where('sign_in_warnings.warned_at', '<', new Date(now.getTime() - 86_400_000)),
    )
    .returning('email_hash')
    .executeTakeFirst()
  return claimed !== undefined
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
