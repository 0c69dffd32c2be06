import type { AddOnQuantities } from '../accounts/entitlements.ts'
import { isAddOn, isPlan, type Plan } from '../accounts/plans.ts'
import { parseLookupKey, type Interval } from './catalogue.ts'
import type { Stripe } from './stripe-client.ts'

/** The status GET /v1/account/billing answers (DESIGN.md 16). */
export type BillingStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'manual' | 'none'

/** What is booked: a plan, its interval and the add-ons with their quantities. */
export interface Booking {
  plan: Plan
  interval: Interval
  addOns: AddOnQuantities
}

/** A subscription as the service reads it back from Stripe. */
export interface SubscriptionState {
  id: string
  customerId: string
  /** The account it was made for (set in its metadata at checkout). */
  accountId: string | undefined
  stripeStatus: Stripe.Subscription.Status
  status: BillingStatus
  /** What the subscription's items bill for. */
  billed: Booking | undefined
  /** What the account has now: what was booked before a downgrade until the period it was paid for ends. */
  entitled: Booking
  /** A downgrade booked for the end of the period: what comes, and when. */
  scheduled: { booking: Booking; at: Date } | undefined
  currentPeriodEnd: Date | undefined
  cancelAtPeriodEnd: boolean
}

/**
 * Keys of the subscription's metadata that hold what was paid for before a downgrade booked for
 * the period's end (`entitled_items` as `plan_pro_month:1,addon_extra_seat_month:2`) and until when
 * (`entitled_until`, Unix seconds). The downgrade itself is made on the items at once without
 * proration, so Stripe bills the lower price from the next period; the account keeps what it paid
 * for until then.
 */
export const ENTITLED_ITEMS = 'entitled_items'
export const ENTITLED_UNTIL = 'entitled_until'
export const ACCOUNT_ID = 'account_id'

/** The lookup keys and quantities of a booking, as `entitled_items` holds them. */
export function encodeBooking(booking: Booking): string {
  const parts = [`plan_${booking.plan}_${booking.interval}:1`]
  for (const [id, quantity] of Object.entries(booking.addOns)) parts.push(`addon_${id}_${booking.interval}:${quantity}`)
  return parts.join(',')
}

function bookingOf(items: ReadonlyArray<{ key: string | null | undefined; quantity: number }>): Booking | undefined {
  let plan: Plan | undefined
  let interval: Interval | undefined
  const addOns: AddOnQuantities = {}
  for (const item of items) {
    const priced = parseLookupKey(item.key)
    if (!priced) continue
    if (priced.kind === 'plan' && isPlan(priced.id)) {
      plan = priced.id
      interval = priced.interval
    } else if (priced.kind === 'add_on' && isAddOn(priced.id)) addOns[priced.id] = Math.max(1, item.quantity)
  }
  return plan && interval ? { plan, interval, addOns } : undefined
}

export function decodeBooking(value: string | undefined): Booking | undefined {
  if (!value) return undefined
  return bookingOf(
    value.split(',').map((part) => {
      const [key, quantity] = part.split(':')
      return { key, quantity: Number(quantity) || 1 }
    }),
  )
}

const FREE: Booking = { plan: 'free', interval: 'month', addOns: {} }

function statusOf(status: Stripe.Subscription.Status): BillingStatus {
  switch (status) {
    case 'active':
      return 'active'
    case 'trialing':
      return 'trialing'
    case 'past_due':
      return 'past_due'
    case 'incomplete':
      return 'none'
    default:
      // canceled, unpaid (every retry failed), incomplete_expired, paused: nothing is paid for.
      return 'canceled'
  }
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id)

/**
 * Reads a subscription: what it bills for, what the account is entitled to now (the plan while
 * Stripe retries a failed payment; free once nothing is paid for; what was booked before a
 * downgrade until the period's end) and when the period ends.
 */
export function readSubscription(subscription: Stripe.Subscription, now = new Date()): SubscriptionState {
  const items = subscription.items.data
  const billed = bookingOf(items.map((item) => ({ key: item.price.lookup_key, quantity: item.quantity ?? 1 })))
  const ends = items.map((item) => item.current_period_end).filter((n): n is number => typeof n === 'number')
  const currentPeriodEnd = ends.length ? new Date(Math.min(...ends) * 1000) : undefined
  const status = statusOf(subscription.status)
  const until = Number(subscription.metadata?.[ENTITLED_UNTIL] ?? 0)
  const before = until * 1000 > now.getTime() ? decodeBooking(subscription.metadata?.[ENTITLED_ITEMS]) : undefined
  const paying = status === 'active' || status === 'trialing' || status === 'past_due'
  const entitled = paying && billed ? (before ?? billed) : FREE
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer) ?? '',
    accountId: subscription.metadata?.[ACCOUNT_ID] || undefined,
    stripeStatus: subscription.status,
    status,
    billed,
    entitled,
    scheduled: paying && before && billed ? { booking: billed, at: new Date(until * 1000) } : undefined,
    currentPeriodEnd,
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
  }
}

/** The subscription an event is about, by id: the subscription itself, an invoice's, a Checkout Session's. */
export function subscriptionIdOf(event: Stripe.Event): string | undefined {
  const object = event.data.object as unknown as Record<string, unknown>
  if (object['object'] === 'subscription') return object['id'] as string
  if (object['object'] === 'checkout.session') return idOf(object['subscription'] as string | { id: string } | null)
  if (object['object'] === 'invoice') {
    const parent = object['parent'] as { subscription_details?: { subscription?: string | { id: string } } | null } | null
    return idOf(parent?.subscription_details?.subscription ?? (object['subscription'] as string | undefined))
  }
  return undefined
}
