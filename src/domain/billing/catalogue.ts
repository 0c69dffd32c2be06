import { loadPricing, type AddOnId, type Plan, type Pricing } from '../accounts/plans.ts'
import type { Stripe } from './stripe-client.ts'

/**
 * Stripe's products and prices made from the price list (DESIGN.md 16), so the list stays the one
 * source: one product per paid plan and per add-on (its id fixed, `wps_plan_lite`), one price per
 * plan or add-on and interval, found by its `lookup_key` (`plan_lite_month`, `addon_extra_seat_year`).
 * Yearly prices take the list's yearly discount; add-ons have yearly prices too, since every item
 * of a subscription bills on the same interval.
 */
export type Interval = 'month' | 'year'
export const INTERVALS: readonly Interval[] = ['month', 'year']

export type Priced = { kind: 'plan'; id: Exclude<Plan, 'free'> } | { kind: 'add_on'; id: AddOnId }

export function productId(item: Priced): string {
  return `wps_${item.kind === 'plan' ? 'plan' : 'addon'}_${item.id}`
}

export function lookupKey(item: Priced, interval: Interval): string {
  return `${item.kind === 'plan' ? 'plan' : 'addon'}_${item.id}_${interval}`
}

/** What a lookup key names: a plan or an add-on, and the interval; undefined for a key not ours. */
export function parseLookupKey(
  key: string | null | undefined,
  pricing: Pricing = loadPricing(),
): (Priced & { interval: Interval }) | undefined {
  const match = /^(plan|addon)_([a-z_]+)_(month|year)$/.exec(key ?? '')
  if (!match) return undefined
  const interval = match[3] as Interval
  if (match[1] === 'plan') {
    const plan = pricing.plans.find((p) => p.id === match[2] && p.id !== 'free')
    return plan ? { kind: 'plan', id: plan.id as Exclude<Plan, 'free'>, interval } : undefined
  }
  const addOn = pricing.add_ons.find((a) => a.id === match[2])
  return addOn ? { kind: 'add_on', id: addOn.id, interval } : undefined
}

export interface CataloguePrice {
  item: Priced
  name: string
  description: string
  interval: Interval
  lookupKey: string
  unitAmount: number
}

/** Every price the price list asks Stripe for. */
export function cataloguePrices(pricing: Pricing = loadPricing()): CataloguePrice[] {
  const factor = 12 * (1 - pricing.yearly_discount_percent / 100)
  const prices: CataloguePrice[] = []
  for (const plan of pricing.plans) {
    if (plan.id === 'free') continue
    const item: Priced = { kind: 'plan', id: plan.id }
    for (const interval of INTERVALS) {
      const unitAmount = interval === 'month' ? plan.monthly_price_cents : plan.yearly_price_cents
      prices.push({
        item,
        name: `${plan.name} plan`,
        description: plan.features.join('; '),
        interval,
        lookupKey: lookupKey(item, interval),
        unitAmount,
      })
    }
  }
  for (const addOn of pricing.add_ons) {
    const item: Priced = { kind: 'add_on', id: addOn.id }
    for (const interval of INTERVALS) {
      const unitAmount = interval === 'month' ? addOn.monthly_price_cents : Math.round(addOn.monthly_price_cents * factor)
      prices.push({ item, name: addOn.name, description: addOn.description, interval, lookupKey: lookupKey(item, interval), unitAmount })
    }
  }
  return prices
}

export interface SyncReport {
  products: { created: string[]; updated: string[]; unchanged: string[] }
  prices: { created: string[]; replaced: string[]; unchanged: string[]; retired: string[] }
}

function isMissing(error: unknown): boolean {
  return (error as { type?: string; statusCode?: number }).statusCode === 404
}

/**
 * Makes Stripe's catalogue match the price list, and may run any number of times: a product is
 * found by its fixed id (made when missing, renamed when its name changed), a price by its lookup
 * key. A price whose amount or currency changed is made anew, taking over the lookup key
 * (`transfer_lookup_key`), and the old one is retired (inactive): subscriptions on it keep it
 * until they change, new ones get the new price.
 */
export async function syncCatalogue(stripe: Stripe, pricing: Pricing = loadPricing()): Promise<SyncReport> {
  const report: SyncReport = {
    products: { created: [], updated: [], unchanged: [] },
    prices: { created: [], replaced: [], unchanged: [], retired: [] },
  }
  const currency = pricing.currency.toLowerCase()
  const prices = cataloguePrices(pricing)
  const seen = new Set<string>()
  for (const price of prices) {
    const id = productId(price.item)
    if (seen.has(id)) continue
    seen.add(id)
    let product: Stripe.Product | undefined
    try {
      product = await stripe.products.retrieve(id)
    } catch (error) {
      if (!isMissing(error)) throw error
    }
    if (!product) {
      await stripe.products.create({ id, name: price.name, description: price.description, metadata: { source: 'price-list' } })
      report.products.created.push(id)
    } else if (product.name !== price.name || product.description !== price.description || !product.active) {
      await stripe.products.update(id, { name: price.name, description: price.description, active: true })
      report.products.updated.push(id)
    } else report.products.unchanged.push(id)
  }
  const existing = new Map<string, Stripe.Price>()
  const keys = prices.map((p) => p.lookupKey)
  // Stripe takes at most 10 lookup keys a call.
  for (let i = 0; i < keys.length; i += 10) {
    const page = await stripe.prices.list({ lookup_keys: keys.slice(i, i + 10), active: true, limit: 100 })
    for (const found of page.data) if (found.lookup_key) existing.set(found.lookup_key, found)
  }
  for (const price of prices) {
    const current = existing.get(price.lookupKey)
    const product = typeof current?.product === 'string' ? current.product : current?.product?.id
    if (
      current &&
      current.unit_amount === price.unitAmount &&
      current.currency === currency &&
      current.recurring?.interval === price.interval &&
      product === productId(price.item)
    ) {
      report.prices.unchanged.push(price.lookupKey)
      continue
    }
    await stripe.prices.create({
      product: productId(price.item),
      currency,
      unit_amount: price.unitAmount,
      recurring: { interval: price.interval },
      lookup_key: price.lookupKey,
      transfer_lookup_key: true,
      // Prices are net (the price list says so); Stripe Tax adds VAT on top where it applies.
      tax_behavior: 'exclusive',
      metadata: { source: 'price-list' },
    })
    if (current) {
      await stripe.prices.update(current.id, { active: false })
      report.prices.replaced.push(price.lookupKey)
      report.prices.retired.push(current.id)
    } else report.prices.created.push(price.lookupKey)
  }
  return report
}

/** The active price of each lookup key asked for (the ones `billing sync` made). */
export async function pricesByLookupKey(stripe: Stripe, keys: readonly string[]): Promise<Map<string, Stripe.Price>> {
  const found = new Map<string, Stripe.Price>()
  for (let i = 0; i < keys.length; i += 10) {
    const page = await stripe.prices.list({ lookup_keys: [...keys.slice(i, i + 10)], active: true, limit: 100 })
    for (const price of page.data) if (price.lookup_key) found.set(price.lookup_key, price)
  }
  return found
}
