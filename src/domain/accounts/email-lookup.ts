import { createHmac, randomBytes } from 'node:crypto'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'

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
