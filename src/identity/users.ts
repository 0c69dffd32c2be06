import { createHmac, randomBytes } from 'node:crypto'
import { newId, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'

export type EmailHasher = (email: string) => string

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

/**
 * Emails are looked up by a keyed hash: a plain SHA-256 of an address is reversed by a dictionary.
 * The key is random, kept sealed in the database, so every instance derives the same hashes.
 */
export async function loadEmailHasher(db: Db, keyring: Keyring): Promise<EmailHasher> {
  const name = 'email_lookup_key'
  await db
    .insertInto('identity_secrets')
    .values({ name, value_sealed: keyring.seal(randomBytes(32).toString('base64'), `identity_secrets:${name}`) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('identity_secrets').select('value_sealed').where('name', '=', name).executeTakeFirstOrThrow()
  const key = Buffer.from(keyring.open(row.value_sealed, `identity_secrets:${name}`), 'base64')
  return (email) => createHmac('sha256', key).update(normaliseEmail(email)).digest('hex')
}

export interface User {
  id: string
  accountId: string
  email: string
}

/** The user with this email, created with a new account on plan free at the first sign-in. */
export async function findOrCreateUser(db: Db, keyring: Keyring, emailHash: string, email: string): Promise<User> {
  const existing = await db.selectFrom('users').select(['id', 'account_id']).where('email_hash', '=', emailHash).executeTakeFirst()
  if (existing) {
    await db.updateTable('users').set({ last_sign_in_at: new Date() }).where('id', '=', existing.id).execute()
    return { id: existing.id, accountId: existing.account_id, email: normaliseEmail(email) }
  }
  const userId = newId('usr')
  const accountId = newId('acct')
  const created = await db.transaction().execute(async (trx) => {
    await trx.insertInto('accounts').values({ id: accountId }).execute()
    return trx
      .insertInto('users')
      .values({ id: userId, account_id: accountId, email_hash: emailHash, email_sealed: keyring.seal(normaliseEmail(email), `users.email:${userId}`), last_sign_in_at: new Date() })
      .onConflict((oc) => oc.column('email_hash').doNothing())
      .returning(['id', 'account_id'])
      .executeTakeFirst()
  })
  if (created) return { id: created.id, accountId: created.account_id, email: normaliseEmail(email) }
  // Two first sign-ins raced: the other one created the user; its empty account stays unused.
  const winner = await db.selectFrom('users').select(['id', 'account_id']).where('email_hash', '=', emailHash).executeTakeFirstOrThrow()
  return { id: winner.id, accountId: winner.account_id, email: normaliseEmail(email) }
}

export async function userById(db: Db, keyring: Keyring, id: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').select(['id', 'account_id', 'email_sealed']).where('id', '=', id).executeTakeFirst()
  return row ? { id: row.id, accountId: row.account_id, email: keyring.open(row.email_sealed, `users.email:${row.id}`) } : undefined
}

/** The account a user acts for, without opening the sealed email. */
export async function accountOfUser(db: Db, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('account_id').where('id', '=', userId).executeTakeFirst()
  return row?.account_id
}
