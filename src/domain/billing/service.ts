import { accountById } from '../accounts/accounts.ts'
import { listMembers } from '../accounts/members.ts'
import { entitlementsOf } from '../accounts/add-ons.ts'
import { addOnAvailable, addOnTerms, planRank, type AddOnQuantities } from '../accounts/entitlements.ts'
import { ADD_ONS, PLANS, type Plan } from '../accounts/plans.ts'
import { MAX_QUANTITY } from '../accounts/add-ons.ts'
import { errors } from '../../errors.ts'
import { addOnList, applySubscription, mailPastDue, type Applied, type ApplyDeps, type Cause } from './apply.ts'
import { accountOfCustomer, billingOf, firstTimeOf, setCustomer, type BillingRow } from './billing-state.ts'
import { lookupKey, pricesByLookupKey, type Interval } from './catalogue.ts'
import type { Stripe } from './stripe-client.ts'
import {
  ACCOUNT_ID,
  encodeBooking,
  ENTITLED_ITEMS,
  ENTITLED_UNTIL,
  readSubscription,
  subscriptionIdOf,
  type BillingStatus,
  type Booking,
  type SubscriptionState,
} from './subscription.ts'
import { withTransaction } from '../transaction.ts'
import { planRefused } from '../accounts/plan-refusals.ts'

export interface BillingDeps extends ApplyDeps {
  /** Undefined without STRIPE_SECRET_KEY: nothing is charged, the operator sets plans. */
  stripe: Stripe | undefined
  /** Checkout asks Stripe Tax to compute VAT. */
  automaticTax: boolean
  /** STRIPE_API_BASE. */
  apiBase?: string
  /** The time a subscription is read at (a downgrade booked for a period's end applies after it); now by default. */
  now?: () => Date
}

/** GET /v1/account/billing (DESIGN.md 16). */
export interface BillingView {
  plan: Plan
  interval: Interval | null
  status: BillingStatus
  add_ons: Array<{ id: string; quantity: number }>
  current_period_end: string | null
  cancel_at_period_end: boolean
  /** A downgrade or cancellation booked for the end of the period. */
  scheduled_change: { plan: Plan; interval: Interval | null; add_ons: Array<{ id: string; quantity: number }>; at: string } | null
  /** Whether self-serve billing is set up on this service. */
  available: boolean
}

export interface Invoice {
  id: string
  number: string | null
  created_at: string
  total_cents: number
  currency: string
  status: string
  pdf_url: string | null
}

/** What an owner asks for: a plan with its interval and add-ons (free cancels at the period's end). */
export interface PlanRequest {
  plan: Plan
  interval: Interval
  addOns: AddOnQuantities
}

export interface ChangeAnswer {
  /** Where to send the person: Stripe's Checkout page, or back to the billing page. */
  url: string
  /** When it applies: after the payment on Checkout, at once (prorated), or at the period's end. */
  effective: 'checkout' | 'now' | 'period_end'
}

/** Subscription metadata: the account's deletion stopped its renewal (a restore lets it renew again). */
const HELD_FOR_DELETION = 'held_for_deletion'

/** The subscription states in which the account has a subscription to change rather than to start. */
const LIVE: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due'])

/**
 * Self-serve billing (DESIGN.md 16): what every interface calls, with the account frame's checks
 * made by the room (owners only). Every call to Stripe goes through the official SDK; a failure
 * of Stripe is 502 billing_provider_failed (logged), never its own message.
 */
export class Billing {
  readonly deps: BillingDeps
  constructor(deps: BillingDeps) {
    this.deps = deps
  }

  #now(): Date {
    return this.deps.now?.() ?? new Date()
  }

  /**
   * Where the billing forms send the person on: Stripe's Checkout and Customer Portal pages
   * (on the origin of STRIPE_API_BASE when it points elsewhere, as the tests' fake does).
   */
  get pageOrigins(): string[] {
    const base = new URL(this.deps.apiBase ?? 'https://api.stripe.com')
    return base.hostname === 'api.stripe.com' ? ['https://checkout.stripe.com', 'https://billing.stripe.com'] : [base.origin]
  }

  get available(): boolean {
    return this.deps.stripe !== undefined
  }

  #stripe(): Stripe {
    if (!this.deps.stripe)
      throw new errors.billingUnavailable('Paying online is not set up on this service; the operator changes plans on request')
    return this.deps.stripe
  }

  async #call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if ((error as { code?: string }).code && String((error as { code?: string }).code).startsWith('FST_')) throw error
      this.deps.log.warn({ err: error, what }, 'a call to Stripe failed')
      throw new errors.billingProviderFailed('The payment provider did not answer as expected; try again shortly')
    }
  }

  /** The account's plan and what is billed, as the service last read it from Stripe. */
  async view(accountId: string): Promise<BillingView> {
    const limits = await entitlementsOf(this.deps.db, accountId)
    if (!limits) throw new errors.notFound('Account not found')
    const row = await billingOf(this.deps.db, accountId)
    const status: BillingStatus = row?.manual ? 'manual' : ((row?.status as BillingStatus | undefined) ?? 'none')
    const paying = status === 'active' || status === 'trialing' || status === 'past_due'
    let scheduled: BillingView['scheduled_change'] = null
    if (paying && row?.current_period_end && row.cancel_at_period_end)
      scheduled = { plan: 'free', interval: null, add_ons: [], at: row.current_period_end.toISOString() }
    else if (paying && row?.scheduled)
      scheduled = {
        plan: row.scheduled.plan as Plan,
        interval: row.scheduled.interval as Interval,
        add_ons: addOnList(row.scheduled.add_ons as AddOnQuantities),
        at: row.scheduled.at,
      }
    return {
      plan: limits.plan,
      interval: paying ? ((row?.interval as Interval | null) ?? null) : null,
      status,
      add_ons: addOnList(limits.addOns),
      current_period_end: paying ? (row?.current_period_end?.toISOString() ?? null) : null,
      cancel_at_period_end: paying ? (row?.cancel_at_period_end ?? false) : false,
      scheduled_change: scheduled,
      available: this.available,
    }
  }

  /** The account's invoices, newest first (none before a first checkout). */
  async invoices(accountId: string, limit = 24): Promise<Invoice[]> {
    const stripe = this.#stripe()
    const row = await billingOf(this.deps.db, accountId)
    if (!row?.customer_id) return []
    const page = await this.#call('invoices.list', () => stripe.invoices.list({ customer: row.customer_id!, limit }))
    return page.data
      .filter((invoice) => invoice.status !== 'draft')
      .map((invoice) => ({
        id: invoice.id ?? '',
        number: invoice.number,
        created_at: new Date(invoice.created * 1000).toISOString(),
        total_cents: invoice.total,
        currency: invoice.currency,
        status: invoice.status ?? 'open',
        pdf_url: invoice.invoice_pdf ?? null,
      }))
  }

  /** Checks a request against the price list: add-ons of the plan, quantities only where they count. */
  #check(request: PlanRequest): void {
    if (!PLANS.includes(request.plan)) throw new errors.validationFailed(`The plan must be one of ${PLANS.join(', ')}`)
    if (request.interval !== 'month' && request.interval !== 'year') throw new errors.validationFailed('The interval must be month or year')
    for (const [id, quantity] of Object.entries(request.addOns)) {
      if (!(ADD_ONS as readonly string[]).includes(id)) throw new errors.validationFailed(`Unknown add-on ${id}`)
      const terms = addOnTerms(id as (typeof ADD_ONS)[number])
      if (!Number.isInteger(quantity) || quantity! < 1 || quantity! > MAX_QUANTITY)
        throw new errors.validationFailed(`The quantity of ${id} must be a whole number from 1 to ${MAX_QUANTITY}`)
      if (!terms.perUnit && quantity !== 1) throw new errors.validationFailed(`The ${terms.name} add-on has no quantity`)
      if (!addOnAvailable(request.plan, terms.id))
        throw planRefused(
          'plan_required',
          `The ${terms.name} add-on is available from plan ${terms.availableFrom}; plan ${request.plan} does not offer it`,
          { about: 'feature', plan: request.plan, from: terms.availableFrom },
        )
    }
  }

  /**
   * An owner changes the plan: a first subscription through Stripe Checkout (the answer is its
   * page), a change of a running one as a subscription update. An upgrade applies at once and is
   * prorated (the difference invoiced now); a downgrade and a cancellation (plan free) apply at the
   * end of the period that was paid for.
   */
  async change(accountId: string, email: string | undefined, request: PlanRequest, cause: Cause): Promise<ChangeAnswer> {
    const stripe = this.#stripe()
    this.#check(request)
    const row = await billingOf(this.deps.db, accountId)
    if (row?.manual)
      throw new errors.billingManual('The plan of this account is set by the operator; ask them to change it or to hand billing back')
    const billingUrl = `${this.deps.baseUrl}/app/billing`
    const subscription = row?.subscription_id
      ? await this.#call('subscriptions.retrieve', () => stripe.subscriptions.retrieve(row.subscription_id!))
      : undefined
    const live = subscription && LIVE.has(subscription.status) ? subscription : undefined
    if (!live) {
      if (request.plan === 'free') throw new errors.conflict('The account has no paid subscription to cancel')
      return { url: await this.#checkout(stripe, accountId, email, row, request), effective: 'checkout' }
    }
    const state = readSubscription(live, this.#now())
    if (request.plan === 'free') {
      const updated = await this.#call('subscriptions.update', () => stripe.subscriptions.update(live.id, { cancel_at_period_end: true }))
      await this.apply(accountId, readSubscription(updated, this.#now()), cause)
      return { url: billingUrl, effective: 'period_end' }
    }
    const wanted: Booking = { plan: request.plan, interval: request.interval, addOns: request.addOns }
    const upgrade = isUpgrade(state.entitled, wanted)
    const prices = await this.#prices(stripe, wanted)
    const items: Stripe.SubscriptionUpdateParams.Item[] = []
    const wantedKeys = new Map<string, number>([
      [lookupKey({ kind: 'plan', id: wanted.plan as Exclude<Plan, 'free'> }, wanted.interval), 1],
    ])
    for (const [id, quantity] of Object.entries(wanted.addOns))
      wantedKeys.set(lookupKey({ kind: 'add_on', id: id as never }, wanted.interval), quantity!)
    const kindOf = (key: string | null | undefined) => key?.replace(/_(month|year)$/, '')
    const usedItems = new Set<string>()
    for (const [key, quantity] of wantedKeys) {
      const same = live.items.data.find((item) => !usedItems.has(item.id) && kindOf(item.price.lookup_key) === kindOf(key))
      const planItem = key.startsWith('plan_')
        ? live.items.data.find((item) => !usedItems.has(item.id) && item.price.lookup_key?.startsWith('plan_'))
        : undefined
      const existing = same ?? planItem
      if (existing) usedItems.add(existing.id)
      items.push({ ...(existing ? { id: existing.id } : {}), price: prices.get(key)!.id, quantity })
    }
    for (const item of live.items.data) if (!usedItems.has(item.id)) items.push({ id: item.id, deleted: true })
    const metadata: Record<string, string> = upgrade
      ? { [ENTITLED_ITEMS]: '', [ENTITLED_UNTIL]: '' }
      : {
          // A second downgrade in the same period keeps what was paid for first.
          [ENTITLED_ITEMS]:
            live.metadata[ENTITLED_ITEMS] && state.scheduled ? live.metadata[ENTITLED_ITEMS] : encodeBooking(state.entitled),
          [ENTITLED_UNTIL]: String(Math.floor((state.currentPeriodEnd?.getTime() ?? Date.now()) / 1000)),
        }
    const updated = await this.#call('subscriptions.update', () =>
      stripe.subscriptions.update(live.id, {
        items,
        cancel_at_period_end: false,
        metadata,
        // An upgrade is invoiced at once for the rest of the period; a downgrade bills from the next one.
        proration_behavior: upgrade ? 'always_invoice' : 'none',
      }),
    )
    await this.apply(accountId, readSubscription(updated, this.#now()), cause)
    return { url: billingUrl, effective: upgrade ? 'now' : 'period_end' }
  }

  async #prices(stripe: Stripe, booking: Booking): Promise<Map<string, Stripe.Price>> {
    const keys = [lookupKey({ kind: 'plan', id: booking.plan as Exclude<Plan, 'free'> }, booking.interval)]
    for (const id of Object.keys(booking.addOns)) keys.push(lookupKey({ kind: 'add_on', id: id as never }, booking.interval))
    const prices = await this.#call('prices.list', () => pricesByLookupKey(stripe, keys))
    const missing = keys.filter((key) => !prices.has(key))
    if (missing.length) {
      this.deps.log.warn({ missing }, 'prices missing in Stripe: run npm run admin -- billing sync')
      throw new errors.billingUnavailable('Paying online is not ready yet (the prices are not set up); the operator can fix it')
    }
    return prices
  }

  async #checkout(
    stripe: Stripe,
    accountId: string,
    email: string | undefined,
    row: BillingRow | undefined,
    request: PlanRequest,
  ): Promise<string> {
    const booking: Booking = { plan: request.plan, interval: request.interval, addOns: request.addOns }
    const prices = await this.#prices(stripe, booking)
    let customerId = row?.customer_id ?? undefined
    if (!customerId) {
      // The customer is mailed at the address of the owner who pays (or the first owner, for an operator's token).
      email ??= (await listMembers(this.deps.db, this.deps.keyring, accountId)).find((m) => m.role === 'owner')?.email
      const customer = await this.#call('customers.create', () =>
        stripe.customers.create(
          { ...(email ? { email } : {}), metadata: { [ACCOUNT_ID]: accountId } },
          { idempotencyKey: `customer-${accountId}` },
        ),
      )
      customerId = customer.id
      await setCustomer(this.deps.db, accountId, customerId)
    }
    const lineItems = [...prices.entries()].map(([key, price]) => ({
      price: price.id,
      quantity: key.startsWith('addon_') ? (booking.addOns[key.replace(/^addon_/, '').replace(/_(month|year)$/, '') as never] ?? 1) : 1,
    }))
    const session = await this.#call('checkout.sessions.create', () =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: accountId,
        line_items: lineItems,
        subscription_data: { metadata: { [ACCOUNT_ID]: accountId } },
        // Prices are net: Checkout collects the billing address and a VAT ID, Stripe Tax adds VAT when enabled.
        billing_address_collection: 'required',
        tax_id_collection: { enabled: true },
        customer_update: { address: 'auto', name: 'auto' },
        ...(this.deps.automaticTax ? { automatic_tax: { enabled: true } } : {}),
        success_url: `${this.deps.baseUrl}/app/billing?done=checkout&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${this.deps.baseUrl}/app/billing?done=checkout-canceled`,
      }),
    )
    if (!session.url) throw new errors.billingProviderFailed('The payment provider gave no checkout page; try again shortly')
    return session.url
  }

  /** The Customer Portal, where the owner changes the card, sees invoices or cancels. */
  async portal(accountId: string): Promise<string> {
    const stripe = this.#stripe()
    const row = await billingOf(this.deps.db, accountId)
    if (!row?.customer_id) throw new errors.conflict('The account has not paid for a plan yet: there is nothing to manage')
    const session = await this.#call('billingPortal.sessions.create', () =>
      stripe.billingPortal.sessions.create({ customer: row.customer_id!, return_url: `${this.deps.baseUrl}/app/billing` }),
    )
    return session.url
  }

  /** Applies a subscription read back from Stripe to its account. */
  async apply(accountId: string, state: SubscriptionState, cause: Cause): Promise<Applied> {
    const applied = await applySubscription(this.deps, accountId, state, cause)
    if (applied.pastDue) await mailPastDue(this.deps, accountId, state)
    return applied
  }

  /**
   * Reads the subscription of a finished Checkout back at once, when the person returns to the
   * billing page (the webhook may come later): only a session of this account counts.
   */
  async returnFromCheckout(accountId: string, sessionId: string, cause: Cause): Promise<void> {
    const stripe = this.#stripe()
    if (!/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) return
    const session = await this.#call('checkout.sessions.retrieve', () => stripe.checkout.sessions.retrieve(sessionId))
    if (session.client_reference_id !== accountId || !session.subscription) return
    const id = typeof session.subscription === 'string' ? session.subscription : session.subscription.id
    const subscription = await this.#call('subscriptions.retrieve', () => stripe.subscriptions.retrieve(id))
    await this.apply(accountId, readSubscription(subscription, this.#now()), cause)
  }

  /**
   * One event from Stripe, its signature already checked: handled once (by its id), and only as a
   * hint: the subscription it is about is read back from Stripe and applied, so an event that
   * comes late, twice or out of order changes nothing that is not true now. Answers whether it
   * was new.
   */
  async handleEvent(event: Stripe.Event, cause: Omit<Cause, 'requestId'>): Promise<'handled' | 'duplicate' | 'ignored'> {
    const stripe = this.#stripe()
    const seen = await this.deps.db.selectFrom('stripe_events').select('id').where('id', '=', event.id).executeTakeFirst()
    if (seen) return 'duplicate'
    const subscriptionId = subscriptionIdOf(event)
    if (!subscriptionId) {
      await firstTimeOf(this.deps.db, event, null)
      return 'ignored'
    }
    const subscription = await this.#call('subscriptions.retrieve', () => stripe.subscriptions.retrieve(subscriptionId))
    const state = readSubscription(subscription, this.#now())
    const accountId = await this.#accountOf(state, event)
    if (!accountId) {
      this.deps.log.warn({ event: event.id, subscription: subscriptionId }, 'a Stripe event about a subscription of no known account')
      await firstTimeOf(this.deps.db, event, null)
      return 'ignored'
    }
    const applied = await withTransaction(this.deps.db, async (trx) => {
      if (!(await firstTimeOf(trx, event, accountId))) return undefined
      return applySubscription({ ...this.deps, db: trx }, accountId, state, { ...cause, requestId: event.id })
    })
    if (applied?.pastDue) await mailPastDue(this.deps, accountId, state)
    return applied ? 'handled' : 'duplicate'
  }

  /** The account an event is about; none once the account is erased (its subscription's last events change nothing). */
  async #accountOf(state: SubscriptionState, event: Stripe.Event): Promise<string | undefined> {
    const object = event.data.object as unknown as Record<string, unknown>
    const named = state.accountId ?? (typeof object['client_reference_id'] === 'string' ? object['client_reference_id'] : undefined)
    const account = named ? await accountById(this.deps.db, named) : undefined
    if (account) return account.erased_at === null ? account.id : undefined
    return state.customerId ? accountOfCustomer(this.deps.db, state.customerId) : undefined
  }

  /**
   * Sets whether the account's live subscription renews, for the account's deletion (DESIGN.md
   * 19): while it is suspended nothing more is charged (the subscription ends with its period), and
   * a restore lets it renew again. Only what the deletion switched off is switched back on: a
   * cancellation the owner booked before stays. Nothing to do without Stripe or a subscription.
   */
  async holdForDeletion(accountId: string, hold: boolean): Promise<void> {
    const { stripe } = this.deps
    const row = await billingOf(this.deps.db, accountId)
    if (!stripe || !row?.subscription_id || row.manual) return
    const subscription = await this.#call('subscriptions.retrieve', () => stripe.subscriptions.retrieve(row.subscription_id!))
    if (!LIVE.has(subscription.status)) return
    const held = subscription.metadata[HELD_FOR_DELETION] === '1'
    if (hold ? subscription.cancel_at_period_end : !held) return
    await this.#call('subscriptions.update', () =>
      stripe.subscriptions.update(subscription.id, { cancel_at_period_end: hold, metadata: { [HELD_FOR_DELETION]: hold ? '1' : '' } }),
    )
  }

  /**
   * Ends the account's subscription at once, for the erase of the account (DESIGN.md 19): nothing
   * more is billed, nothing is refunded. A failure is thrown, so the erase keeps the rows that name
   * the subscription and tries again. Without Stripe there is nothing to cancel.
   */
  async cancelForErase(accountId: string): Promise<void> {
    const row = await billingOf(this.deps.db, accountId)
    if (!row?.customer_id || row.manual) return
    const { stripe } = this.deps
    if (!stripe) {
      this.deps.log.warn(
        { accountId },
        'an erased account had a Stripe customer, but Stripe is no longer set up: cancel its subscription there',
      )
      return
    }
    const page = await this.#call('subscriptions.list', () => stripe.subscriptions.list({ customer: row.customer_id!, limit: 10 }))
    for (const subscription of page.data) {
      if (subscription.status === 'canceled' || subscription.status === 'incomplete_expired') continue
      await this.#call('subscriptions.cancel', () => stripe.subscriptions.cancel(subscription.id, { invoice_now: false, prorate: false }))
    }
  }

  /**
   * The hourly reconciliation: every account with a Stripe customer (not set by hand) is read back
   * from its newest subscription, which heals an event that never came (or came while the service
   * was down) and makes a downgrade booked for a period's end take effect.
   */
  async reconcile(now = new Date()): Promise<{ accounts: number; changed: number }> {
    const stripe = this.deps.stripe
    if (!stripe) return { accounts: 0, changed: 0 }
    const rows = await this.deps.db
      .selectFrom('account_billing')
      .select(['account_id', 'customer_id', 'subscription_id'])
      .where('manual', '=', false)
      .where('customer_id', 'is not', null)
      .orderBy('account_id')
      .execute()
    let changed = 0
    const cause: Cause = {
      operation: 'billing.reconcile',
      method: 'JOB',
      path: 'billing.reconcile',
      requestId: `reconcile-${now.toISOString()}`,
    }
    for (const row of rows) {
      try {
        const page = await stripe.subscriptions.list({ customer: row.customer_id!, status: 'all', limit: 10 })
        const newest = [...page.data].sort((a, b) => liveFirst(a, b))[0]
        if (!newest) continue
        const applied = await this.apply(row.account_id, readSubscription(newest, this.#now()), cause)
        if (applied.changed) changed++
      } catch (error) {
        this.deps.log.warn({ err: error, accountId: row.account_id }, 'could not reconcile an account with Stripe')
      }
    }
    return { accounts: rows.length, changed }
  }
}

/** A live subscription before an ended one, then the newest. */
function liveFirst(a: Stripe.Subscription, b: Stripe.Subscription): number {
  const live = (s: Stripe.Subscription) => (LIVE.has(s.status) ? 0 : 1)
  return live(a) - live(b) || b.created - a.created
}

/**
 * Whether a change applies at once (prorated): a higher plan, or the same plan with no add-on
 * fewer and no shorter interval. Anything that lowers what is paid for waits for the period's end.
 */
export function isUpgrade(current: Booking, wanted: Booking): boolean {
  if (current.plan === 'free') return true
  if (planRank(wanted.plan) !== planRank(current.plan)) return planRank(wanted.plan) > planRank(current.plan)
  if (current.interval === 'year' && wanted.interval === 'month') return false
  return ADD_ONS.every((id) => (wanted.addOns[id] ?? 0) >= (current.addOns[id] ?? 0))
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Self-serve billing with Stripe (DESIGN.md 16): the billing room decorates it, every room calls it. */
    billing: Billing
  }
}
