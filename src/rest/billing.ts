import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ADD_ONS, PlanId } from '../domain/accounts/plans.ts'
import type { AddOnQuantities } from '../domain/accounts/entitlements.ts'
import type { Cause } from '../domain/billing/apply.ts'
import { errors } from '../errors.ts'
import { literalUnion } from '../schemas.ts'
import { sendItem } from './http.ts'

const Interval = literalUnion(['month', 'year'] as const)
const AddOn = Type.Object(
  {
    id: literalUnion(ADD_ONS),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Units (extra_domain, extra_seat); 1 for the others.' }),
  },
  { additionalProperties: false },
)

const Billing = Type.Object(
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

const Invoice = Type.Object(
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

const Checkout = Type.Object(
  {
    plan: PlanId,
    interval: Type.Optional(Type.Union(Interval.anyOf, { default: 'month' })),
    add_ons: Type.Optional(Type.Array(AddOn, { maxItems: ADD_ONS.length })),
  },
  { additionalProperties: false },
)

const Redirect = Type.Object(
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

function causeOf(request: FastifyRequest): Cause {
  const { principal } = request
  return {
    operation: request.routeOptions.config.operation ?? 'account.billing.checkout',
    method: request.method,
    path: request.routeOptions.url ?? request.url,
    requestId: request.id,
    ip: request.ip,
    userId: principal.userId,
    tokenId: principal.tokenId,
    clientId: principal.clientId,
  }
}

/**
 * Billing (DESIGN.md 16), the owner's on every plan (the frame's `billing` right): what the plan
 * and subscription are, the invoices, and a change of plan (Checkout for a first subscription, a
 * prorated update after; free cancels at the period's end). Without Stripe set up, the reads still
 * answer and a change is 503 billing_unavailable.
 */
export default async function billingRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/account/billing',
    {
      config: { operation: 'account.billing.get', access: 'read', right: 'billing' },
      schema: { summary: 'The plan, its interval, add-ons and the subscription’s state', tags: ['account'], response: { 200: Billing } },
    },
    async (request, reply) => sendItem(reply, await app.billing.view(request.principal.accountId)),
  )

  typed.get(
    '/account/invoices',
    {
      config: { operation: 'account.invoices.list', access: 'read', right: 'billing' },
      schema: {
        summary: 'The account’s invoices, newest first',
        tags: ['account'],
        response: { 200: Type.Object({ data: Type.Array(Invoice) }, { additionalProperties: false, description: 'Invoices' }) },
      },
    },
    async (request) => ({ data: app.billing.available ? await app.billing.invoices(request.principal.accountId) : [] }),
  )

  typed.post(
    '/account/billing/checkout',
    {
      config: { operation: 'account.billing.checkout', access: 'write', right: 'billing' },
      schema: {
        summary: 'Change the plan: Checkout for a first subscription, a prorated update after; free cancels at the period’s end',
        tags: ['account'],
        body: Checkout,
        response: { 200: Redirect },
      },
    },
    async (request) => {
      const addOns: AddOnQuantities = {}
      for (const addOn of request.body.add_ons ?? []) {
        if (addOns[addOn.id] !== undefined) throw new errors.validationFailed(`The add-on ${addOn.id} is named twice`)
        addOns[addOn.id] = addOn.quantity
      }
      return app.billing.change(
        request.principal.accountId,
        undefined,
        { plan: request.body.plan, interval: request.body.interval ?? 'month', addOns },
        causeOf(request),
      )
    },
  )

  typed.post(
    '/account/billing/portal',
    {
      config: { operation: 'account.billing.portal', access: 'write', right: 'billing' },
      schema: {
        summary: 'Open Stripe’s Customer Portal: the card, the invoices, cancelling',
        tags: ['account'],
        response: { 200: Redirect },
      },
    },
    async (request) => ({ url: await app.billing.portal(request.principal.accountId) }),
  )
}
