import { readFileSync } from 'node:fs'
import { Type, type Static } from 'typebox'
import { literalUnion } from '../../schemas.ts'

/** The plans, cheapest first (DESIGN.md 6): the one list every room uses. */
export const PLANS = ['free', 'lite', 'plus', 'pro', 'max'] as const

export type Plan = (typeof PLANS)[number]

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value)
}

export const PlanId = literalUnion(PLANS)

/** The add-ons of the price list, switched per account by the operator. */
export const ADD_ONS = ['extra_domain', 'ai_sales_assistant', 'premium_seo_reports', 'extra_seat'] as const

export type AddOnId = (typeof ADD_ONS)[number]

export function isAddOn(value: unknown): value is AddOnId {
  return typeof value === 'string' && (ADD_ONS as readonly string[]).includes(value)
}

export const SEO_REPORT_CADENCES = ['none', 'monthly', 'weekly'] as const
export type SeoReportCadence = (typeof SEO_REPORT_CADENCES)[number]

/** A count the plan includes; null is unlimited. */
const Allowance = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: `${description}; null is unlimited` })

const PlanSchema = Type.Object(
  {
    id: PlanId,
    name: Type.String(),
    monthly_price_cents: Type.Integer({ minimum: 0 }),
    yearly_price_cents: Type.Integer({ minimum: 0, description: 'Price for a year paid at once, with the yearly discount.' }),
    features: Type.Array(Type.String()),
    api_access: Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('read_write')]),
    webhooks: Type.Boolean(),
    api_requests_per_hour: Type.Integer({ minimum: 0 }),
    sites: Allowance('Sites an account may have'),
    own_domains: Allowance('Own domains included (each extra_domain add-on adds one)'),
    seats: Allowance('Members included (each extra_seat add-on adds one)'),
    seo_reports: literalUnion(SEO_REPORT_CADENCES),
    stats_retention_days: Type.Integer({
      minimum: 1,
      description: 'Days the visitor statistics are kept (30 days; 13 months is 396, 25 months 761)',
    }),
    storage_mb: Type.Integer({ minimum: 0, description: 'Storage for the media library, in megabytes (1 GB = 1000 MB)' }),
  },
  { additionalProperties: false },
)

const AddOn = Type.Object(
  {
    id: literalUnion(ADD_ONS),
    name: Type.String(),
    monthly_price_cents: Type.Integer({ minimum: 0 }),
    description: Type.String(),
    available_from: PlanId,
    per_unit: Type.Boolean({ description: 'True when it is booked in a quantity (each unit adds one)' }),
  },
  { additionalProperties: false },
)

export const Pricing = Type.Object(
  {
    currency: Type.Literal('EUR'),
    vat_note: Type.String(),
    yearly_discount_percent: Type.Integer({ minimum: 0, maximum: 100 }),
    plans: Type.Array(PlanSchema),
    add_ons: Type.Array(AddOn),
  },
  { additionalProperties: false },
)
export type Pricing = Static<typeof Pricing>

type PricingFile = Omit<Pricing, 'plans'> & { plans: Array<Omit<Static<typeof PlanSchema>, 'yearly_price_cents'>> }

/** The price list, read once from the one data file that the assistant's answers also quote. */
export function loadPricing(): Pricing {
  const file = JSON.parse(readFileSync(new URL('./pricing-data.json', import.meta.url), 'utf8')) as PricingFile
  const factor = 12 * (1 - file.yearly_discount_percent / 100)
  return {
    ...file,
    plans: file.plans.map((plan) => ({ ...plan, yearly_price_cents: Math.round(plan.monthly_price_cents * factor) })),
  }
}
