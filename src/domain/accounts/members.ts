import { sql, type RawBuilder } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { MemberRole } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import type { Plan } from './plans.ts'
import { withTransaction } from '../transaction.ts'
import { changingIn } from './changes.ts'

/**
 * The members of an account (DESIGN.md 12, Teams): people with a role. owner: everything,
 * members and billing-relevant actions included; editor: sites, pages, blocks, domains, publishing,
 * leads and conversations; viewer: reads only. An account always keeps an owner.
 */
export type Role = MemberRole

/** Least to most: a role allows what every role before it allows. */
export const ROLES = ['viewer', 'editor', 'owner'] as const satisfies readonly Role[]

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value)
}

/** Whether `role` may do what needs `needed`. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed)
}

/** The key under which a member's role changes are marked (`changingIn`), so cached roles are read again. */
export function memberKey(accountId: string, userId: string): string {
  return `member:${accountId}:${userId}`
}

export interface Member {
  /** The person (`usr_…`). */
  id: string
  email: string
  role: Role
  created_at: string
}

/** The account's members, owners first, then by when they joined. */
export async function listMembers(db: Db, keyring: Keyring, accountId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('account_members')
    .innerJoin('users', 'users.id', 'account_members.user_id')
    .select(['users.id', 'users.email_sealed', 'account_members.role', 'account_members.created_at'])
    .where('account_members.account_id', '=', accountId)
    .orderBy(sql`case account_members.role when 'owner' then 0 when 'editor' then 1 else 2 end`)
    .orderBy('account_members.created_at')
    .orderBy('account_members.seq')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    email: keyring.open(row.email_sealed, `users.email:${row.id}`),
    role: row.role,
    created_at: row.created_at.toISOString(),
  }))
}

/** The addresses of those of `userIds` who are members of the account (someone who left is not found). */
export async function memberEmails(db: Db, keyring: Keyring, accountId: string, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('account_members')
    .innerJoin('users', 'users.id', 'account_members.user_id')
    .select(['users.id', 'users.email_sealed'])
    .where('account_members.account_id', '=', accountId)
    .where('account_members.user_id', 'in', [...new Set(userIds)])
    .execute()
  return new Map(rows.map((row) => [row.id, keyring.open(row.email_sealed, `users.email:${row.id}`)]))
}

/** The person's role in the account, or undefined when they are not a member. */
export async function roleOf(db: Db, accountId: string, userId: string): Promise<Role | undefined> {
  const row = await db
    .selectFrom('account_members')
    .select('role')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row?.role
}

/**
 * The role an OAuth access token acts with: its person's (`usr_…`), or for a claimed agent
 * (`reg_…`) the person who claimed it. An account nobody has joined (made by the operator without
 * a person) is the operator's: its tokens act as its owner. Undefined: the person is not a member.
 */
export async function actingMember(db: Db, accountId: string, subject: string): Promise<{ userId: string | null; role: Role } | undefined> {
  const userId = subject.startsWith('reg_')
    ? ((
        await db
          .selectFrom('agent_registrations')
          .select('user_id')
          .where('id', '=', subject)
          .where('account_id', '=', accountId)
          .executeTakeFirst()
      )?.user_id ?? null)
    : subject
  if (userId) {
    const role = await roleOf(db, accountId, userId)
    if (role) return { userId, role }
  }
  const anyone = await db.selectFrom('account_members').select('user_id').where('account_id', '=', accountId).limit(1).executeTakeFirst()
  return anyone ? undefined : { userId, role: 'owner' }
}

/**
 * The user id of the account's first owner (the oldest owner membership, joins within one clock
 * tick in the order they were made): the person an account is known by and whose address gets
 * its mails. `accountId` is the SQL expression naming the account.
 */
const firstOwner = (accountId: RawBuilder<unknown>) =>
  sql<
    string | null
  >`(select o.user_id from account_members o where o.account_id = ${accountId} and o.role = 'owner' order by o.created_at, o.seq limit 1)`

/** The email of the account's first owner (see firstOwner), opened from its seal; null for an account without one. */
export async function accountEmail(db: Db, keyring: Keyring, accountId: string): Promise<string | null> {
  const owner = await db
    .selectFrom('users')
    .select(['id', 'email_sealed'])
    .where(sql<boolean>`users.id = ${firstOwner(sql.val(accountId))}`)
    .executeTakeFirst()
  return owner ? keyring.open(owner.email_sealed, `users.email:${owner.id}`) : null
}

/** The account's first owner as a mail's recipient: their address and the language they chose (null: none yet). */
export async function accountRecipient(
  db: Db,
  keyring: Keyring,
  accountId: string,
): Promise<{ email: string; language: string | null } | null> {
  const owner = await db
    .selectFrom('users')
    .select(['id', 'email_sealed', 'language'])
    .where(sql<boolean>`users.id = ${firstOwner(sql.val(accountId))}`)
    .executeTakeFirst()
  return owner ? { email: keyring.open(owner.email_sealed, `users.email:${owner.id}`), language: owner.language } : null
}

export interface Membership {
  accountId: string
  plan: Plan
  role: Role
  /** The email of the account's first owner: how a person tells their accounts apart. */
  ownerEmail: string | null
}

/** Every account the person belongs to, the one they joined first first. */
export async function membershipsOf(db: Db, keyring: Keyring, userId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('account_members as m')
    .innerJoin('accounts', 'accounts.id', 'm.account_id')
    .leftJoin('users as owner', (join) => join.on(sql<boolean>`owner.id = ${firstOwner(sql.ref('m.account_id'))}`))
    .select(['m.account_id', 'm.role', 'accounts.plan', 'owner.id as owner_id', 'owner.email_sealed as owner_sealed'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('m.seq')
    .execute()
  return rows.map((row) => ({
    accountId: row.account_id,
    plan: row.plan,
    role: row.role,
    ownerEmail: row.owner_id && row.owner_sealed ? keyring.open(row.owner_sealed, `users.email:${row.owner_id}`) : null,
  }))
}

/** The account's owners, oldest first (the first one gets the account's mails). */
export async function ownersOf(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('account_members')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .orderBy('seq')
    .execute()
  return rows.map((row) => row.user_id)
}

/** Holds the account's row to the end of the transaction: member changes of one account happen one after another. */
async function lockAccount(trx: Db, accountId: string): Promise<void> {
  const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst()
  if (!account) throw new errors.notFound(`No account ${accountId}`)
}

async function lockedRole(trx: Db, accountId: string, userId: string): Promise<Role> {
  await lockAccount(trx, accountId)
  const role = await roleOf(trx, accountId, userId)
  if (!role) throw new errors.notFound('There is no such member in this account')
  return role
}

async function otherOwners(trx: Db, accountId: string, userId: string): Promise<number> {
  const row = await trx
    .selectFrom('account_members')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .where('user_id', '<>', userId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The cached readings of the member's role and of their API tokens in the account are stale from now on, and once `trx` commits (see `changing`). */
async function forgetMember(trx: Db, accountId: string, userId: string): Promise<string[]> {
  const tokens = await trx.selectFrom('api_tokens').select('id').where('account_id', '=', accountId).where('user_id', '=', userId).execute()
  changingIn(trx, [memberKey(accountId, userId), ...tokens.map((token) => token.id)])
  return tokens.map((token) => token.id)
}

/** Adds a person to the account, or leaves them as they are when they are a member already. Answers their role. */
export async function addMember(trx: Db, accountId: string, userId: string, role: Role): Promise<Role> {
  const added = await trx
    .insertInto('account_members')
    .values({ account_id: accountId, user_id: userId, role })
    .onConflict((oc) => oc.columns(['account_id', 'user_id']).doNothing())
    .returning('role')
    .executeTakeFirst()
  return added?.role ?? (await roleOf(trx, accountId, userId))!
}

/** Gives a member another role; the last owner cannot be demoted (409 conflict). Answers the role before. */
export async function changeRole(db: Db, accountId: string, userId: string, role: Role): Promise<Role> {
  return withTransaction(db, async (trx) => {
    const before = await lockedRole(trx, accountId, userId)
    if (before === role) return before
    if (before === 'owner' && (await otherOwners(trx, accountId, userId)) === 0) {
      throw new errors.conflict('The account would have no owner left: make another member an owner first')
    }
    await trx
      .updateTable('account_members')
      .set({ role, updated_at: new Date() })
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .execute()
    await forgetMember(trx, accountId, userId)
    return before
  })
}

/**
 * Takes a member out of the account (removed by an owner, or leaving): their API tokens of the
 * account are revoked with it. The last owner cannot go (409 conflict). A person left without any
 * account gets a new one of their own on plan free, as at a first sign-in; a person whose default
 * account this was gets another of theirs as default.
 */
export async function removeMember(db: Db, accountId: string, userId: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const role = await lockedRole(trx, accountId, userId)
    if (role === 'owner' && (await otherOwners(trx, accountId, userId)) === 0) {
      throw new errors.conflict('The last owner cannot leave the account: make another member an owner first')
    }
    const tokens = await forgetMember(trx, accountId, userId)
    if (tokens.length)
      await trx
        .updateTable('api_tokens')
        .set({ revoked_at: new Date() })
        .where('id', 'in', tokens)
        .where('revoked_at', 'is', null)
        .execute()
    await trx.deleteFrom('account_members').where('account_id', '=', accountId).where('user_id', '=', userId).execute()
    await trx
      .updateTable('web_sessions')
      .set({ account_id: null })
      .where('user_id', '=', userId)
      .where('account_id', '=', accountId)
      .execute()
    const user = await trx.selectFrom('users').select('account_id').where('id', '=', userId).executeTakeFirstOrThrow()
    if (user.account_id !== accountId) return
    const next = await trx
      .selectFrom('account_members')
      .select('account_id')
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('seq')
      .executeTakeFirst()
    let home = next?.account_id
    if (!home) {
      home = newId('acct')
      await trx.insertInto('accounts').values({ id: home }).execute()
      await trx.insertInto('account_members').values({ account_id: home, user_id: userId, role: 'owner' }).execute()
    }
    await trx.updateTable('users').set({ account_id: home }).where('id', '=', userId).execute()
  })
}
