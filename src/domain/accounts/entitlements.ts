import { loadPricing, PLANS, type AddOnId, type Plan, type Pricing, type SeoReportCadence } from './plans.ts'

/**
 * What each plan gets, read from the price list (src/domain/accounts/pricing-data.json) and nowhere else:
 * /api/pricing serves the same data, so enforcement, the dashboard and the assistant cannot drift
 * from what the list promises (DESIGN.md 12). A count of null is unlimited.
 */
export interface PlanEntitlements {
  plan: Plan
  name: string
  apiAccess: 'none' | 'read' | 'read_write'
  apiRequestsPerHour: number
  webhooks: boolean
  sites: number | null
  ownDomains: number | null
  seats: number | null
  seoReports: SeoReportCadence
  /** Days the visitor statistics of the account's sites are kept. */
  statsRetentionDays: number
  /** The media library's storage, in megabytes. */
  storageMb: number
}

export interface AddOnTerms {
  id: AddOnId
  name: string
  /** The cheapest plan it can be switched on for. */
  availableFrom: Plan
  /** Booked in a quantity (each unit adds one domain or seat). */
  perUnit: boolean
}

function read(pricing: Pricing): { plans: Record<Plan, PlanEntitlements>; addOns: Record<AddOnId, AddOnTerms> } {
  const plans = {} as Record<Plan, PlanEntitlements>
  for (const p of pricing.plans) {
    plans[p.id] = {
      plan: p.id,
      name: p.name,
      apiAccess: p.api_access,
      apiRequestsPerHour: p.api_requests_per_hour,
      webhooks: p.webhooks,
      sites: p.sites,
      ownDomains: p.own_domains,
      seats: p.seats,
      seoReports: p.seo_reports,
      statsRetentionDays: p.stats_retention_days,
      storageMb: p.storage_mb,
    }
  }
  const missing = PLANS.filter((plan) => !plans[plan])
  if (missing.length) throw new Error(`the price list has no entry for plan ${missing.join(', ')}`)
  const addOns = {} as Record<AddOnId, AddOnTerms>
  for (const a of pricing.add_ons) addOns[a.id] = { id: a.id, name: a.name, availableFrom: a.available_from, perUnit: a.per_unit }
  return { plans, addOns }
}

const { plans, addOns } = read(loadPricing())

export function planEntitlements(plan: Plan): PlanEntitlements {
  return plans[plan]
}

export function addOnTerms(id: AddOnId): AddOnTerms {
  return addOns[id]
}

/** The plan's place in the price list, cheapest first. */
export function planRank(plan: Plan): number {
  return PLANS.indexOf(plan)
}

/** Whether `plan` is `floor` or above. */
export function atLeast(plan: Plan, floor: Plan): boolean {
  return planRank(plan) >= planRank(floor)
}

/** The cheapest plan for which `test` holds, or undefined when none does. */
export function cheapestPlan(test: (entitlements: PlanEntitlements) => boolean): Plan | undefined {
  return PLANS.find((plan) => test(plans[plan]))
}

/** Whether a count of `n` is within an allowance (null is unlimited). */
export function within(n: number, allowance: number | null): boolean {
  return allowance === null || n <= allowance
}

/** REST, MCP and GraphQL access of a plan: reads from plus, changes from pro (DESIGN.md 7). */
export function apiAllows(plan: Plan, access: 'read' | 'write'): boolean {
  const granted = plans[plan].apiAccess
  return granted === 'read_write' || (granted === 'read' && access === 'read')
}

/**
 * What an action needs of the price list beyond API access, in the shape the account frame's
 * `authorize` takes (`entitlement`), so its plan_required names the account and the cheapest plan.
 */
export const webhooksEntitlement = { name: 'webhooks', allows: (plan: Plan) => plans[plan].webhooks }

/** Whether the plan may have the add-on switched on. */
export function addOnAvailable(plan: Plan, id: AddOnId): boolean {
  return atLeast(plan, addOns[id].availableFrom)
}

/** An account's add-ons: which are on, with their quantity (1 for an add-on without one). */
export type AddOnQuantities = Partial<Record<AddOnId, number>>

/** What an account may have: its plan's entitlements with its add-ons counted in. */
export interface AccountEntitlements extends PlanEntitlements {
  addOns: AddOnQuantities
  /** The sales assistant on the account's own sites: the add-on, on a plan it is available for. */
  assistant: boolean
  /** Scheduled reports are the premium audit. */
  premiumReports: boolean
}

const plus = (included: number | null, extra: number | undefined) => (included === null ? null : included + (extra ?? 0))

/**
 * The entitlements of a plan with an account's add-ons. An add-on left on after a downgrade below
 * the plan it needs gives nothing until the account is on that plan again.
 */
export function accountEntitlements(plan: Plan, quantities: AddOnQuantities): AccountEntitlements {
  const base = plans[plan]
  const has = (id: AddOnId) => quantities[id] !== undefined && addOnAvailable(plan, id)
  return {
    ...base,
    ownDomains: plus(base.ownDomains, has('extra_domain') ? quantities.extra_domain : 0),
    seats: plus(base.seats, has('extra_seat') ? quantities.extra_seat : 0),
    addOns: quantities,
    assistant: has('ai_sales_assistant'),
    premiumReports: has('premium_seo_reports') && base.seoReports !== 'none',
  }
}

/** "3 sites", "1 own domain", "unlimited sites": an allowance as a message says it. */
export function countOf(n: number | null, one: string, many: string): string {
  if (n === null) return `unlimited ${many}`
  return `${n} ${n === 1 ? one : many}`
}
