import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Cause } from '../domain/billing/apply.ts'
import { addOnQuantities, Billing, Checkout, Invoice, Redirect } from '../domain/billing/schemas.ts'
import { sendItem } from './http.ts'

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
    async (request) =>
      app.billing.change(
        request.principal.accountId,
        undefined,
        { plan: request.body.plan, interval: request.body.interval ?? 'month', addOns: addOnQuantities(request.body.add_ons) },
        causeOf(request),
      ),
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
