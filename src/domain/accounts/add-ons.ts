import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { errors } from '../../errors.ts'
import { ADD_ONS, isAddOn, type AddOnId, type Plan } from './plans.ts'
import { withTransaction } from '../transaction.ts'
import { accountEntitlements, addOnAvailable, addOnTerms, type AccountEntitlements, type AddOnQuantities } from './entitlements.ts'
import { planRefused } from './plan-refusals.ts'

/** The most units of one add-on an account can carry (the column's check says the same). */
export const MAX_QUANTITY = 10_000

function quantitiesOf(rows: ReadonlyArray<{ add_on: string; quantity: number }>): AddOnQuantities {
  const quantities: AddOnQuantities = {}
  for (const row of rows) if (isAddOn(row.add_on)) quantities[row.add_on] = row.quantity
  return quantities
}

/** The add-ons switched on for each of these accounts (accounts without any are absent). */
export async function addOnsOfAccounts(db: Db, accountIds: readonly string[]): Promise<Map<string, AddOnQuantities>> {
  if (accountIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('account_add_ons')
    .select(['account_id', 'add_on', 'quantity'])
    .where('account_id', 'in', accountIds)
    .orderBy('add_on')
    .execute()
  const byAccount = new Map<string, AddOnQuantities>()
  for (const row of rows) byAccount.set(row.account_id, { ...byAccount.get(row.account_id), ...quantitiesOf([row]) })
  return byAccount
}

export interface AccountLimits extends AccountEntitlements {
  accountId: string
}

/**
 * The account's plan with its add-ons counted in, read in one statement; undefined when there is
 * no such account. `lock` holds the account row to the end of the caller's transaction, so two
 * creations checked against the same count happen one after the other.
 */
export async function entitlementsOf(db: Db, accountId: string, options: { lock?: boolean } = {}): Promise<AccountLimits | undefined> {
  let query = db.selectFrom('accounts').select(['id', 'plan']).where('id', '=', accountId)
  if (options.lock) query = query.forUpdate()
  const account = await query.executeTakeFirst()
  if (!account) return undefined
  const rows = await db.selectFrom('account_add_ons').select(['add_on', 'quantity']).where('account_id', '=', accountId).execute()
  return { accountId, ...accountEntitlements(account.plan, quantitiesOf(rows)) }
}

/**
 * Says on every site of the account whether its sales assistant is included (the add-on on a
 * plan that offers it). Kept in the site's settings, so the assistant, the widget and the CORS
 * check read it with the site, and a turn answered meanwhile is taken again. Call in the
 * transaction that changed the add-on or the plan.
 */
export async function syncAssistantIncluded(db: Db, accountId: string, included: boolean): Promise<void> {
  await db
    .updateTable('sites')
    .set({ settings: sql`settings || jsonb_build_object('assistant_included', ${included}::boolean)` })
    .where('account_id', '=', accountId)
    .where(sql<boolean>`(settings->>'assistant_included') is distinct from ${String(included)}`)
    .execute()
}

export interface AddOnChange {
  accountId: string
  addOn: AddOnId
  on: boolean
  /** Units of an add-on booked in a quantity (extra_domain, extra_seat); 1 when not given. */
  quantity?: number
}

/** What an account has after a change: its plan and add-ons. */
export interface AccountAddOns {
  accountId: string
  plan: Plan
  addOns: AddOnQuantities
}

/**
 * Switches an add-on on (with its quantity) or off for an account. Switching on needs a plan the
 * add-on is available for (403 plan_required naming the plan); a quantity is only for add-ons
 * booked in units. Undefined when there is no such account.
 */
export async function setAddOn(db: Db, change: AddOnChange): Promise<AccountAddOns | undefined> {
  const terms = addOnTerms(change.addOn)
  if (change.quantity !== undefined) {
    if (!Number.isInteger(change.quantity) || change.quantity < 1 || change.quantity > MAX_QUANTITY)
      throw new errors.validationFailed(`The quantity must be a whole number from 1 to ${MAX_QUANTITY}`)
    if (!terms.perUnit && change.quantity !== 1) throw new errors.validationFailed(`The ${terms.name} add-on has no quantity`)
    if (!change.on) throw new errors.validationFailed('A quantity is given only when switching an add-on on')
  }
  return withTransaction(db, async (trx) => {
    const account = await trx
      .selectFrom('accounts')
      .select(['id', 'plan'])
      .where('id', '=', change.accountId)
      .forUpdate()
      .executeTakeFirst()
    if (!account) return undefined
    if (change.on && !addOnAvailable(account.plan, change.addOn)) {
      throw planRefused(
        'plan_required',
        `The account ${account.id} is on plan ${account.plan}; the ${terms.name} add-on is available from plan ${terms.availableFrom}`,
        { about: 'feature', plan: account.plan, from: terms.availableFrom },
      )
    }
    if (change.on) {
      const quantity = change.quantity ?? 1
      await trx
        .insertInto('account_add_ons')
        .values({ account_id: account.id, add_on: change.addOn, quantity })
        .onConflict((oc) => oc.columns(['account_id', 'add_on']).doUpdateSet({ quantity, updated_at: new Date() }))
        .execute()
    } else {
      await trx.deleteFrom('account_add_ons').where('account_id', '=', account.id).where('add_on', '=', change.addOn).execute()
    }
    const rows = await trx.selectFrom('account_add_ons').select(['add_on', 'quantity']).where('account_id', '=', account.id).execute()
    const addOns = quantitiesOf(rows)
    if (change.addOn === 'ai_sales_assistant')
      await syncAssistantIncluded(trx, account.id, accountEntitlements(account.plan, addOns).assistant)
    return { accountId: account.id, plan: account.plan, addOns }
  })
}

/** "ai_sales_assistant, extra_domain ×2": an account's add-ons as the admin CLI lists them. */
export function describeAddOns(addOns: AddOnQuantities): string {
  return ADD_ONS.filter((id) => addOns[id] !== undefined)
    .map((id) => (addOnTerms(id).perUnit ? `${id} ×${addOns[id]}` : id))
    .join(', ')
}
