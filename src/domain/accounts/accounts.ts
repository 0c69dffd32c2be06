import type { Selectable } from 'kysely'
import { changing } from './changes.ts'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { AccountsTable } from '../../infra/tables.ts'
import type { Plan } from './plans.ts'
import { addOnsOfAccounts, entitlementsOf, syncAssistantIncluded } from './add-ons.ts'
import type { AddOnQuantities } from './entitlements.ts'
import { withTransaction } from '../transaction.ts'

export type AccountRow = Selectable<AccountsTable>

export async function accountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The account of the person with this email (looked up by the keyed hash, never in clear). */
export async function accountByEmailHash(db: Db, emailHash: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('accounts')
    .innerJoin('users', 'users.account_id', 'accounts.id')
    .selectAll('accounts')
    .where('users.email_hash', '=', emailHash)
    .executeTakeFirst()
}

export interface AccountSummary {
  id: string
  email: string | null
  plan: Plan
  quota_override: number | null
  add_ons: AddOnQuantities
  created_at: string
}

/** Every account, oldest first, with its first user's email opened from its seal. */
export async function listAccounts(db: Db, keyring: Keyring): Promise<AccountSummary[]> {
  const rows = await db
    .selectFrom('accounts')
    .leftJoin('users', 'users.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.plan', 'accounts.quota_override', 'accounts.created_at', 'users.id as user_id', 'users.email_sealed'])
    .orderBy('accounts.created_at')
    .orderBy('accounts.id')
    .orderBy('users.created_at')
    .execute()
  const seen = new Map<string, AccountSummary>()
  for (const row of rows) {
    if (seen.has(row.id)) continue
    const email = row.email_sealed && row.user_id ? keyring.open(row.email_sealed, `users.email:${row.user_id}`) : null
    seen.set(row.id, {
      id: row.id,
      email,
      plan: row.plan,
      quota_override: row.quota_override,
      add_ons: {},
      created_at: row.created_at.toISOString(),
    })
  }
  const addOns = await addOnsOfAccounts(db, [...seen.keys()])
  return [...seen.values()].map((account) => ({ ...account, add_ons: addOns.get(account.id) ?? {} }))
}

/**
 * Changes an account; undefined when there is no such account. A plan change deletes nothing: the
 * sites' assistants follow what the new plan offers of the account's add-ons.
 */
export async function updateAccount(
  db: Db,
  id: string,
  change: { plan?: Plan; quotaOverride?: number | null },
): Promise<AccountRow | undefined> {
  return changing(db, [id], () =>
    withTransaction(db, async (trx) => {
      const row = await trx
        .updateTable('accounts')
        .set({
          ...(change.plan ? { plan: change.plan } : {}),
          ...(change.quotaOverride !== undefined ? { quota_override: change.quotaOverride } : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      if (row && change.plan) await syncAssistantIncluded(trx, id, (await entitlementsOf(trx, id))!.assistant)
      return row
    }),
  )
}
