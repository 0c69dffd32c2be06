import type { Selectable } from 'kysely'
import type { Db } from '../../infra/db.ts'
import type { AccountBillingTable } from '../../infra/tables.ts'

export type BillingRow = Selectable<AccountBillingTable>

/** The account's billing row, if it has one (an account never billed and never set by hand has none). */
export async function billingOf(db: Db, accountId: string, options: { lock?: boolean } = {}): Promise<BillingRow | undefined> {
  let query = db.selectFrom('account_billing').selectAll().where('account_id', '=', accountId)
  if (options.lock) query = query.forUpdate()
  return query.executeTakeFirst()
}

/** The account's billing row, made empty when missing, held to the end of the caller's transaction. */
export async function lockBilling(db: Db, accountId: string): Promise<BillingRow> {
  await db
    .insertInto('account_billing')
    .values({ account_id: accountId })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute()
  return (await billingOf(db, accountId, { lock: true }))!
}

/** The account a Stripe customer was made for. */
export async function accountOfCustomer(db: Db, customerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('account_billing').select('account_id').where('customer_id', '=', customerId).executeTakeFirst()
  return row?.account_id
}

export async function setCustomer(db: Db, accountId: string, customerId: string): Promise<void> {
  await db
    .insertInto('account_billing')
    .values({ account_id: accountId, customer_id: customerId })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ customer_id: customerId, updated_at: new Date() }))
    .execute()
}

/**
 * Marks the plan as set by the operator by hand (DESIGN.md 16, `billing: manual`), or gives it
 * back to Stripe: while manual, Stripe's events and the reconciliation leave plan and add-ons alone.
 */
export async function setManual(db: Db, accountId: string, manual: boolean): Promise<void> {
  await db
    .insertInto('account_billing')
    .values({ account_id: accountId, manual })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ manual, updated_at: new Date() }))
    .execute()
}

/**
 * Records an event as handled; false when it was handled before (Stripe sends an event again
 * until it is answered 2xx, and may send it twice anyway). Call in the transaction that acts on it.
 */
export async function firstTimeOf(db: Db, event: { id: string; type: string }, accountId: string | null): Promise<boolean> {
  const inserted = await db
    .insertInto('stripe_events')
    .values({ id: event.id, type: event.type, account_id: accountId })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst()
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0
}

/** The accounts the reconciliation reads back from Stripe: every one with a customer, not set by hand. */
export async function billedAccounts(db: Db): Promise<Array<Pick<BillingRow, 'account_id' | 'customer_id' | 'subscription_id'>>> {
  return db
    .selectFrom('account_billing')
    .select(['account_id', 'customer_id', 'subscription_id'])
    .where('manual', '=', false)
    .where('customer_id', 'is not', null)
    .orderBy('account_id')
    .execute()
}
