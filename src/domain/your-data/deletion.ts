import { sql } from 'kysely'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob, type NamedJob } from '../../infra/jobs.ts'
import { errors } from '../../errors.ts'
import { markChanged } from '../accounts/changes.ts'
import { accountEmail } from '../accounts/members.ts'
import { accountChanged } from '../accounts/quota-tally.ts'
import { withTransaction } from '../transaction.ts'

/** How long a deleted account waits, restorable, before it is erased (DESIGN.md 19). */
export const DELETION_GRACE_DAYS = 14
export const ERASE_JOB = 'account.erase'

/**
 * What the erase reaches outside the database, before it deletes the rows that name it: the
 * payment provider's subscription (billing plugs its cancellation in) and the files kept in object
 * storage (the media library's). Without them there is nothing outside to remove.
 */
export interface EraseHooks {
  cancelSubscription?: (db: Db, accountId: string) => Promise<void>
  removeObjects?: (db: Db, accountId: string) => Promise<void>
  /** Drops what this instance counted for the account in memory (its hourly calls), so nothing is written for it afterwards. */
  forgetCounts?: (accountId: string) => Promise<void>
}

export interface DeletionState {
  requestedAt: Date
  eraseAfter: Date
}

/** The account's pending deletion, if it is suspended for one. */
export async function pendingDeletion(db: Db, accountId: string): Promise<DeletionState | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['deletion_requested_at', 'erase_after'])
    .where('id', '=', accountId)
    .where('deletion_requested_at', 'is not', null)
    .where('erased_at', 'is', null)
    .executeTakeFirst()
  return row?.deletion_requested_at && row.erase_after ? { requestedAt: row.deletion_requested_at, eraseAfter: row.erase_after } : undefined
}

/** The name an owner types to delete the account: the address of its first owner, as the dashboard names the account ("Account of …"). */
export async function accountName(db: Db, keyring: Keyring, accountId: string): Promise<string> {
  return (await accountEmail(db, keyring, accountId)) ?? accountId
}

/**
 * Suspends the account for deletion: its live sites go offline (remembered, to come back on a
 * restore) and the erase job waits 14 days. The owner must have typed the account's name
 * (422 account_name_mismatch otherwise).
 */
export async function requestAccountDeletion(
  db: Db,
  keyring: Keyring,
  accountId: string,
  typed: string,
  now = new Date(),
): Promise<DeletionState> {
  const name = await accountName(db, keyring, accountId)
  if (typed.trim().toLowerCase() !== name.toLowerCase())
    throw new errors.accountNameMismatch('Type the account’s name exactly as shown to delete it')
  const eraseAfter = new Date(now.getTime() + DELETION_GRACE_DAYS * 86_400_000)
  return withTransaction(db, async (trx) => {
    await trx
      .updateTable('accounts')
      .set({ deletion_requested_at: now, erase_after: eraseAfter })
      .where('id', '=', accountId)
      .where('erased_at', 'is', null)
      .execute()
    await trx
      .updateTable('sites')
      .set({ suspended_status: sql`status`, status: 'offline' })
      .where('account_id', '=', accountId)
      .where('suspended_status', 'is', null)
      .execute()
    await enqueueJob(trx, ERASE_JOB, { account_id: accountId }, { runAt: eraseAfter, uniqueKey: `erase:${accountId}`, maxAttempts: 5 })
    return { requestedAt: now, eraseAfter }
  })
}

/** Brings a suspended account back as it was: its sites in their former status. */
export async function restoreAccount(db: Db, accountId: string): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const restored = await trx
      .updateTable('accounts')
      .set({ deletion_requested_at: null, erase_after: null })
      .where('id', '=', accountId)
      .where('deletion_requested_at', 'is not', null)
      .where('erased_at', 'is', null)
      .executeTakeFirst()
    if (!Number(restored.numUpdatedRows)) return false
    await trx
      .updateTable('sites')
      .set({ status: sql`suspended_status`, suspended_status: null })
      .where('account_id', '=', accountId)
      .where('suspended_status', 'is not', null)
      .execute()
    return true
  })
}

/** The tables of the current schema that have a column of this name (every driver answers information_schema). */
async function tablesWith(db: Db, column: string): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`select c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
    where c.column_name = ${column} and c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name`.execute(db)
  return rows.map((r) => r.table_name)
}

/**
 * Erases everything of an account (DESIGN.md 19): the rows of every table that names the account
 * or one of its sites (sites, releases, pages, media, leads, conversations, tokens, statistics,
 * exports, the audit log, …, whichever tables exist: a table added later is covered by its
 * account_id or site_id column), the members' access and the sign-ins of people who belonged to
 * no other account, after cancelling the subscription. Only the account's row stays, with its id,
 * plan and dates. `removeObjects` deletes what the account keeps outside the database (media in S3)
 * first, so a failure leaves the rows that name them for the next try.
 */
export async function eraseAccount(db: Db, accountId: string, hooks: EraseHooks = {}): Promise<void> {
  await hooks.cancelSubscription?.(db, accountId)
  await hooks.removeObjects?.(db, accountId)
  await hooks.forgetCounts?.(accountId)
  const tokens = await db.selectFrom('api_tokens').select('id').where('account_id', '=', accountId).execute()
  await db.transaction().execute(async (trx) => {
    const siteIds = (await trx.selectFrom('sites').select('id').where('account_id', '=', accountId).execute()).map((s) => s.id)
    const members = (await trx.selectFrom('account_members').select('user_id').where('account_id', '=', accountId).execute()).map(
      (m) => m.user_id,
    )
    // Rows of the account's sites first (some name a site without a foreign key), then the sites.
    if (siteIds.length) {
      const sessions = await trx.selectFrom('agent_sessions').select('id').where('site_id', 'in', siteIds).execute()
      if (sessions.length) {
        for (const table of await tablesWith(trx, 'session_id'))
          await sql`delete from ${sql.table(table)} where session_id = any(${sessions.map((s) => s.id)}::text[])`.execute(trx)
      }
      const pages = await trx.selectFrom('pages').select('id').where('site_id', 'in', siteIds).execute()
      if (pages.length)
        await trx
          .deleteFrom('page_revisions')
          .where(
            'page_id',
            'in',
            pages.map((p) => p.id),
          )
          .execute()
      for (const table of await tablesWith(trx, 'site_id'))
        if (table !== 'sites') await sql`delete from ${sql.table(table)} where site_id = any(${siteIds}::text[])`.execute(trx)
      await trx.deleteFrom('sites').where('id', 'in', siteIds).execute()
    }
    // Members who belong to another account keep their sign-in, now at home there; the others' goes.
    const leaving: string[] = []
    for (const userId of members) {
      const elsewhere = await trx
        .selectFrom('account_members')
        .select('account_id')
        .where('user_id', '=', userId)
        .where('account_id', '<>', accountId)
        .orderBy('created_at')
        .executeTakeFirst()
      if (!elsewhere) leaving.push(userId)
      else {
        await trx
          .updateTable('users')
          .set({ account_id: elsewhere.account_id })
          .where('id', '=', userId)
          .where('account_id', '=', accountId)
          .execute()
        await trx
          .updateTable('web_sessions')
          .set({ account_id: null })
          .where('user_id', '=', userId)
          .where('account_id', '=', accountId)
          .execute()
      }
    }
    for (const userId of leaving) await deleteUserRows(trx, userId)
    for (const table of await tablesWith(trx, 'account_id'))
      if (!KEPT_TABLES.has(table)) await sql`delete from ${sql.table(table)} where account_id = ${accountId}`.execute(trx)
    await trx
      .updateTable('accounts')
      .set({ erased_at: new Date(), deletion_requested_at: null, erase_after: null, quota_override: null })
      .where('id', '=', accountId)
      .execute()
  })
  // This process's caches of the account and its tokens forget them now (other instances within their second).
  accountChanged(accountId)
  for (const token of tokens) markChanged(token.id)
}

const KEPT_WITHOUT_PERSON = new Set(['audit_log', 'page_revisions'])
/** The account's own record, and the people (handled above) who name it as their home. */
const KEPT_TABLES = new Set(['accounts', 'users'])

/** Every row that names a person (`user_id`), then the person. */
async function deleteUserRows(trx: Db, userId: string): Promise<void> {
  for (const table of await tablesWith(trx, 'user_id')) {
    // Other accounts' records keep what was done, no longer by whom.
    if (KEPT_WITHOUT_PERSON.has(table)) await sql`update ${sql.table(table)} set user_id = null where user_id = ${userId}`.execute(trx)
    else await sql`delete from ${sql.table(table)} where user_id = ${userId}`.execute(trx)
  }
  await trx.deleteFrom('users').where('id', '=', userId).execute()
}

/**
 * A person deletes their own sign-in: refused (409 last_owner) while they are the last owner of an
 * account, whose owners must delete the account or hand it on first.
 */
export async function deleteOwnSignIn(db: Db, userId: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const owned = await trx
      .selectFrom('account_members as mine')
      .select('mine.account_id')
      .where('mine.user_id', '=', userId)
      .where('mine.role', '=', 'owner')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('account_members as other')
              .select('other.user_id')
              .whereRef('other.account_id', '=', 'mine.account_id')
              .where('other.role', '=', 'owner')
              .where('other.user_id', '<>', userId),
          ),
        ),
      )
      .execute()
    // An account erased or being erased needs no other owner.
    const live = owned.length
      ? await trx
          .selectFrom('accounts')
          .select('id')
          .where(
            'id',
            'in',
            owned.map((o) => o.account_id),
          )
          .where('erased_at', 'is', null)
          .where('deletion_requested_at', 'is', null)
          .execute()
      : []
    if (live.length)
      throw new errors.lastOwner('You are the last owner of an account: make another member an owner, or delete the account, first')
    await deleteUserRows(trx, userId)
  })
}

/** Erases an account once its 14 days are over, unless it was restored meanwhile. */
export function eraseJob(db: Db, hooks: EraseHooks = {}): NamedJob<{ account_id: string }> {
  return {
    name: ERASE_JOB,
    definition: {
      maxAttempts: 5,
      handler: async ({ account_id }) => {
        const due = await db
          .selectFrom('accounts')
          .select('id')
          .where('id', '=', account_id)
          .where('erased_at', 'is', null)
          .where('erase_after', '<=', new Date())
          .executeTakeFirst()
        if (due) await eraseAccount(db, account_id, hooks)
      },
    },
  }
}
