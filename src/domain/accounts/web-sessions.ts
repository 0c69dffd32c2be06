import { sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { Plan } from './plans.ts'
import type { Role } from './members.ts'

export interface SessionUser {
  id: string
  userId: string
  /** The account chosen in this browser (else the person's default), of which the person is a member. */
  accountId: string
  email: string
  plan: Plan
  role: Role
  /** The language the person chose (de, en, fr), null until they choose. */
  language: string | null
}

/**
 * The person a browser session token belongs to, while the session lasts (tokens are stored
 * hashed), acting in the account chosen in this browser, else their default account. When they no
 * longer belong to that one, the first account they do belong to; undefined when there is none.
 */
export async function sessionUser(db: Db, keyring: Keyring, token: string): Promise<SessionUser | undefined> {
  if (token.length > 100) return undefined
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .leftJoin('account_members as m', (join) =>
      join
        .onRef('m.user_id', '=', 'users.id')
        .on((eb) => eb('m.account_id', '=', eb.fn.coalesce('web_sessions.account_id', 'users.account_id'))),
    )
    .leftJoin('accounts', 'accounts.id', 'm.account_id')
    .select(['users.id', 'users.email_sealed', 'users.language', 'm.account_id', 'm.role', 'accounts.plan'])
    .where('web_sessions.token_hash', '=', sha256Hex(token))
    .where('web_sessions.expires_at', '>', new Date())
    .executeTakeFirst()
  if (!row) return undefined
  const email = keyring.open(row.email_sealed, `users.email:${row.id}`)
  if (row.account_id && row.role && row.plan)
    return { id: row.id, userId: row.id, accountId: row.account_id, email, plan: row.plan, role: row.role, language: row.language }
  const first = await db
    .selectFrom('account_members as m')
    .innerJoin('accounts', 'accounts.id', 'm.account_id')
    .select(['m.account_id', 'm.role', 'accounts.plan'])
    .where('m.user_id', '=', row.id)
    .orderBy('m.created_at')
    .orderBy('m.seq')
    .executeTakeFirst()
  return (
    first && { id: row.id, userId: row.id, accountId: first.account_id, email, plan: first.plan, role: first.role, language: row.language }
  )
}

/** Makes `accountId` the account this browser's session acts in; false when the person is not a member of it. */
export async function chooseSessionAccount(db: Db, token: string, userId: string, accountId: string): Promise<boolean> {
  const member = await db
    .selectFrom('account_members')
    .select('role')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!member) return false
  await db
    .updateTable('web_sessions')
    .set({ account_id: accountId })
    .where('token_hash', '=', sha256Hex(token))
    .where('user_id', '=', userId)
    .execute()
  return true
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
