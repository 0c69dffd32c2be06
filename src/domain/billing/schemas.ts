import { Type } from 'typebox'
import { errors } from '../../errors.ts'
import { literalUnion } from '../../schemas.ts'
import type { AddOnQuantities } from '../accounts/entitlements.ts'
import { ADD_ONS, PlanId } from '../accounts/plans.ts'

// The billing resources of /v1 (DESIGN.md 16), shared by the MCP tools.

export const Interval = literalUnion(['month', 'year'] as const)
export const AddOn = Type.Object(
  {
    id: literalUnion(ADD_ONS),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Units (extra_domain, extra_seat); 1 for the others.' }),
  },
  { additionalProperties: false },
)

export const Billing = Type.Object(
  {
    plan: PlanId,
    interval: Type.Union([Interval, Type.Null()], { description: 'How the plan is billed; null without a paid subscription.' }),
    status: literalUnion(['active', 'trialing', 'past_due', 'canceled', 'manual', 'none'] as const),
    add_ons: Type.Array(AddOn, { description: 'The add-ons the account has now.' }),
    current_period_end: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The end of the period paid for: the next invoice, unless the subscription ends then.',
    }),
    cancel_at_period_end: Type.Boolean(),
    scheduled_change: Type.Union(
      [
        Type.Object(
          {
            plan: PlanId,
            interval: Type.Union([Interval, Type.Null()]),
            add_ons: Type.Array(AddOn),
            at: Type.String({ format: 'date-time' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'A downgrade or a cancellation booked for the end of the period.' },
    ),
    available: Type.Boolean({ description: 'Whether paying online is set up on this service (else the operator sets plans).' }),
  },
  { additionalProperties: false, description: 'The plan and what is billed' },
)

export const Invoice = Type.Object(
  {
    id: Type.String(),
    number: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    total_cents: Type.Integer({ description: 'With VAT where it applies.' }),
    currency: Type.String({ description: 'ISO 4217, lower case.' }),
    status: Type.String({ description: 'open, paid, void or uncollectible' }),
    pdf_url: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
)

export const Checkout = Type.Object(
  {
    plan: PlanId,
    interval: Type.Optional(Type.Union(Interval.anyOf, { default: 'month' })),
    add_ons: Type.Optional(Type.Array(AddOn, { maxItems: ADD_ONS.length })),
  },
  { additionalProperties: false },
)

export const Redirect = Type.Object(
  {
    url: Type.String({ description: 'Where to send the person: Stripe’s Checkout or Customer Portal page, or the billing page.' }),
    effective: Type.Optional(
      Type.Union(literalUnion(['checkout', 'now', 'period_end'] as const).anyOf, {
        description: 'When the change applies: after paying on Checkout, at once (prorated), or at the end of the period.',
      }),
    ),
  },
  { additionalProperties: false },
)

/** A request's add-ons as quantities by id; an add-on named twice is refused. */
export function addOnQuantities(list: ReadonlyArray<{ id: string; quantity: number }> | null | undefined): AddOnQuantities {
  const addOns: Record<string, number> = {}
  for (const addOn of list ?? []) {
    if (addOns[addOn.id] !== undefined) throw new errors.validationFailed(`The add-on ${addOn.id} is named twice`)
    addOns[addOn.id] = addOn.quantity
  }
  return addOns as AddOnQuantities
}
