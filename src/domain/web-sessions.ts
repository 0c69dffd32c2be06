import { sha256Hex, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import type { Plan } from './plans.ts'

export interface SessionUser {
  id: string
  accountId: string
  email: string
  plan: Plan
}

/** The person a browser session token belongs to, while the session lasts (tokens are stored hashed). */
export async function sessionUser(db: Db, keyring: Keyring, token: string): Promise<SessionUser | undefined> {
  if (token.length > 100) return undefined
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .select(['users.id', 'users.account_id', 'users.email_sealed', 'accounts.plan'])
    .where('web_sessions.token_hash', '=', sha256Hex(token))
    .where('web_sessions.expires_at', '>', new Date())
    .executeTakeFirst()
  return row ? { id: row.id, accountId: row.account_id, email: keyring.open(row.email_sealed, `users.email:${row.id}`), plan: row.plan } : undefined
}

/**
 * The browser cookies of a signed-in person, shared by the sign-in pages and the dashboard: the
 * session token and the CSRF secret of the form tokens. On https they take the __Host- prefix,
 * which pins them to this origin and path /.
 */
export function webCookieNames(baseUrl: string): { session: string; csrf: string; secure: boolean } {
  const secure = baseUrl.startsWith('https://')
  return secure ? { session: '__Host-wps_session', csrf: '__Host-wps_csrf', secure } : { session: 'wps_session', csrf: 'wps_csrf', secure }
}
