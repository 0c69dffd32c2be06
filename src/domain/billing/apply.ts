import type { Logger } from 'pino'
import { updateAccount } from '../accounts/accounts.ts'
import { entitlementsOf, syncAssistantIncluded } from '../accounts/add-ons.ts'
import { insertAuditRecords, auditRecord } from '../accounts/audit-log.ts'
import { addOnAvailable, type AddOnQuantities } from '../accounts/entitlements.ts'
import { listMembers } from '../accounts/members.ts'
import { ADD_ONS, isAddOn, type AddOnId } from '../accounts/plans.ts'
import { recordEvent } from '../webhooks/events.ts'
import { withTransaction } from '../transaction.ts'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { lockBilling } from './billing-state.ts'
import type { SubscriptionState } from './subscription.ts'

export interface ApplyDeps {
  db: Db
  keyring: Keyring
  mailer: Mailer
  log: Pick<Logger, 'warn' | 'info'>
  baseUrl: string
}

/** What made the change, for the audit log: the Stripe event, the reconciliation, an owner's request. */
export interface Cause {
  operation: string
  method: string
  path: string
  requestId: string
  ip?: string
  userId?: string | null
  tokenId?: string | null
  clientId?: string | null
}

export interface Applied {
  accountId: string
  /** The plan or add-ons changed. */
  changed: boolean
  /** The payment of the account just became overdue (its owners were mailed). */
  pastDue: boolean
}

const sameAddOns = (a: AddOnQuantities, b: AddOnQuantities) => ADD_ONS.every((id) => (a[id] ?? 0) === (b[id] ?? 0))

/**
 * Brings an account in line with its subscription as read back from Stripe, in one transaction
 * (DESIGN.md 16). The plan and the add-ons the subscription pays for change through the
 * accounts' own functions (the one entitlements source), only the add-ons billing switched on are
 * switched off again (one the operator switched on stays), and a change lands in the audit log and
 * fires `account.plan_changed`. While a payment is overdue the plan stays; when nothing is paid for
 * any more the account falls back to free, deleting nothing. A plan the operator set by hand
 * (`manual`) is left alone: only what Stripe says is recorded. The caller mails the owners when
 * the payment just became overdue (`mailPastDue`), once the transaction has committed.
 */
export async function applySubscription(deps: ApplyDeps, accountId: string, state: SubscriptionState, cause: Cause): Promise<Applied> {
  const applied = await withTransaction(deps.db, async (trx) => {
    const row = await lockBilling(trx, accountId)
    const pastDue = state.status === 'past_due'
    const becamePastDue = pastDue && row.past_due_since === null
    const billedAddOns: AddOnQuantities = row.add_ons ?? {}
    const target = state.entitled
    let changed = false
    const limits = (await entitlementsOf(trx, accountId))!
    if (!row.manual) {
      const current: AddOnQuantities = {}
      for (const id of ADD_ONS) if (billedAddOns[id] !== undefined && limits.addOns[id] !== undefined) current[id] = limits.addOns[id]
      const wanted: AddOnQuantities = {}
      for (const [id, quantity] of Object.entries(target.addOns)) {
        if (!isAddOn(id)) continue
        if (!addOnAvailable(target.plan, id)) {
          deps.log.warn({ accountId, addOn: id, plan: target.plan }, 'a billed add-on is not available for the billed plan; left off')
          continue
        }
        wanted[id] = quantity
      }
      if (limits.plan !== target.plan || !sameAddOns(current, wanted)) {
        changed = true
        if (limits.plan !== target.plan) await updateAccount(trx, accountId, { plan: target.plan })
        await setBilledAddOns(trx, accountId, current, wanted)
        const after = (await entitlementsOf(trx, accountId))!
        await syncAssistantIncluded(trx, accountId, after.assistant)
        await insertAuditRecords(trx, [
          auditRecord({
            accountId,
            tokenId: cause.tokenId ?? null,
            clientId: cause.clientId ?? null,
            userId: cause.userId ?? null,
            operation: cause.operation,
            method: cause.method,
            path: cause.path,
            status: 200,
            requestId: cause.requestId,
            ip: cause.ip ?? '',
          }),
        ])
        await recordEvent(trx, {
          accountId,
          type: 'account.plan_changed',
          data: {
            account_id: accountId,
            plan: target.plan,
            previous_plan: limits.plan,
            interval: target.plan === 'free' ? null : target.interval,
            add_ons: addOnList(after.addOns),
            status: state.status,
          },
        })
      }
      await trx
        .updateTable('account_billing')
        .set({ add_ons: JSON.stringify(wanted) })
        .where('account_id', '=', accountId)
        .execute()
    }
    await trx
      .updateTable('account_billing')
      .set({
        customer_id: state.customerId || row.customer_id,
        subscription_id: state.id,
        status: state.status,
        plan: state.billed?.plan ?? null,
        interval: state.billed?.interval ?? null,
        current_period_end: state.currentPeriodEnd ?? null,
        scheduled: state.scheduled
          ? JSON.stringify({
              plan: state.scheduled.booking.plan,
              interval: state.scheduled.booking.interval,
              add_ons: state.scheduled.booking.addOns,
              at: state.scheduled.at.toISOString(),
            })
          : null,
        cancel_at_period_end: state.cancelAtPeriodEnd,
        past_due_since: pastDue ? (row.past_due_since ?? new Date()) : null,
        updated_at: new Date(),
      })
      .where('account_id', '=', accountId)
      .execute()
    return { accountId, changed, pastDue: becamePastDue }
  })
  return applied
}

/** The add-ons as the API lists them: `[{id, quantity}]` in the price list's order. */
export function addOnList(addOns: AddOnQuantities): Array<{ id: AddOnId; quantity: number }> {
  return ADD_ONS.filter((id) => addOns[id] !== undefined).map((id) => ({ id, quantity: addOns[id]! }))
}

async function setBilledAddOns(db: Db, accountId: string, current: AddOnQuantities, wanted: AddOnQuantities): Promise<void> {
  for (const id of ADD_ONS) {
    const quantity = wanted[id]
    if (quantity === undefined) {
      if (current[id] !== undefined)
        await db.deleteFrom('account_add_ons').where('account_id', '=', accountId).where('add_on', '=', id).execute()
      continue
    }
    await db
      .insertInto('account_add_ons')
      .values({ account_id: accountId, add_on: id, quantity })
      .onConflict((oc) => oc.columns(['account_id', 'add_on']).doUpdateSet({ quantity, updated_at: new Date() }))
      .execute()
  }
}

/**
 * The owners hear of a failed payment once, when it becomes overdue (`Applied.pastDue`): what
 * happens and where to fix it. Sent after the transaction that decided it has committed.
 */
export async function mailPastDue(deps: ApplyDeps, accountId: string, state: SubscriptionState): Promise<void> {
  const owners = (await listMembers(deps.db, deps.keyring, accountId)).filter((m) => m.role === 'owner')
  for (const owner of owners) {
    await deps.mailer
      .send({
        to: owner.email,
        subject: 'Your payment did not go through',
        text: [
          `We could not take the payment for your ${state.entitled.plan} plan.`,
          '',
          'Your plan stays as it is while the card is tried again over the next days. If every try fails,',
          'the account moves to the free plan: nothing is deleted, but what the free plan does not include stops.',
          '',
          `Update your card here: ${deps.baseUrl}/app/billing`,
        ].join('\n'),
      })
      .catch((error: unknown) => deps.log.warn({ err: error, accountId }, 'could not mail an owner about a failed payment'))
  }
}
