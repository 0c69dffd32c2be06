import { sha256Hex, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'

export interface SessionUser {
  id: string
  accountId: string
  email: string
}

/** The person a browser session token belongs to, while the session lasts (tokens are stored hashed). */
export async function sessionUser(db: Db, keyring: Keyring, token: string): Promise<SessionUser | undefined> {
  if (token.length > 100) return undefined
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['users.id', 'users.account_id', 'users.email_sealed'])
    .where('web_sessions.token_hash', '=', sha256Hex(token))
    .where('web_sessions.expires_at', '>', new Date())
    .executeTakeFirst()
  return row ? { id: row.id, accountId: row.account_id, email: keyring.open(row.email_sealed, `users.email:${row.id}`) } : undefined
}
