import { readFileSync } from 'node:fs'
import { Type, type Static } from 'typebox'
import { literalUnion } from '../schemas.ts'

/** The plans, cheapest first (DESIGN.md 6): the one list every room uses. */
export const PLANS = ['free', 'lite', 'plus', 'pro', 'max'] as const

export type Plan = (typeof PLANS)[number]

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value)
}

export const PlanId = literalUnion(PLANS)

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
  },
  { additionalProperties: false },
)

const AddOn = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    monthly_price_cents: Type.Integer({ minimum: 0 }),
    description: Type.String(),
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
