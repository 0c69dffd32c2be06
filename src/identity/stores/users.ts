import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { normaliseEmail } from '../../domain/accounts/email-lookup.ts'
import { withTransaction } from '../../domain/transaction.ts'
import { actingMember } from '../../domain/accounts/members.ts'

export { loadEmailHasher, normaliseEmail, type EmailHasher } from '../../domain/accounts/email-lookup.ts'

export interface User {
  id: string
  accountId: string
  email: string
  /** The language the person chose, null until they choose or first sign in. */
  language: string | null
}

/**
 * The user with this email, created at the first sign-in with a new account on plan free, of
 * which they are the owner. A person who signs in first to join an account they were invited to
 * (`joining`) gets no account of their own: the one they join becomes their default.
 */
export async function findOrCreateUser(
  db: Db,
  keyring: Keyring,
  emailHash: string,
  email: string,
  options: { joining?: string; language?: string } = {},
): Promise<User> {
  const language = options.language ?? null
  const existing = await db
    .selectFrom('users')
    .select(['id', 'account_id', 'language'])
    .where('email_hash', '=', emailHash)
    .executeTakeFirst()
  if (existing) {
    // The language of the pages a person first signs in on stays theirs until they choose another.
    await db
      .updateTable('users')
      .set({ last_sign_in_at: new Date(), language: existing.language ?? language })
      .where('id', '=', existing.id)
      .execute()
    return { id: existing.id, accountId: existing.account_id, email: normaliseEmail(email), language: existing.language ?? language }
  }
  const userId = newId('usr')
  const accountId = options.joining ?? newId('acct')
  const created = await withTransaction(db, async (trx) => {
    if (!options.joining) await trx.insertInto('accounts').values({ id: accountId }).execute()
    const user = await trx
      .insertInto('users')
      .values({
        id: userId,
        account_id: accountId,
        email_hash: emailHash,
        email_sealed: keyring.seal(normaliseEmail(email), `users.email:${userId}`),
        last_sign_in_at: new Date(),
        language,
      })
      .onConflict((oc) => oc.column('email_hash').doNothing())
      .returning(['id', 'account_id'])
      .executeTakeFirst()
    if (user && !options.joining)
      await trx.insertInto('account_members').values({ account_id: accountId, user_id: userId, role: 'owner' }).execute()
    return user
  })
  if (created) return { id: created.id, accountId: created.account_id, email: normaliseEmail(email), language }
  // Two first sign-ins raced: the other one created the user; its empty account stays unused.
  const winner = await db
    .selectFrom('users')
    .select(['id', 'account_id', 'language'])
    .where('email_hash', '=', emailHash)
    .executeTakeFirstOrThrow()
  return { id: winner.id, accountId: winner.account_id, email: normaliseEmail(email), language: winner.language }
}

export async function userById(db: Db, keyring: Keyring, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').select(['id', 'account_id', 'email_sealed', 'language']).where('id', '=', id).executeTakeFirst()
  return row
    ? { id: row.id, accountId: row.account_id, email: keyring.open(row.email_sealed, `users.email:${row.id}`), language: row.language }
    : undefined
}

/**
 * The account a grant acts for: the one chosen when the person gave it (the consent page, the
 * claim's verification page), else, for a grant from before that choice, their default account;
 * undefined once they no longer belong to it (`subject`: the person, or the agent they claimed).
 */
export async function grantAccount(db: Db, chosen: string | null, userId: string, subject: string): Promise<string | undefined> {
  const accountId = chosen ?? (await db.selectFrom('users').select('account_id').where('id', '=', userId).executeTakeFirst())?.account_id
  if (!accountId) return undefined
  return (await actingMember(db, accountId, subject)) ? accountId : undefined
}
