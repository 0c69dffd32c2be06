import type { Cause } from '../../domain/billing/apply.ts'
import { addOnQuantities } from '../../domain/billing/schemas.ts'
import type { BillingView, PlanRequest } from '../../domain/billing/service.ts'
import { errors } from '../../errors.ts'
import { graphqlAuditEntry } from '../audit-log.ts'
import { allowed, requestOf, type GraphqlContext } from '../context.ts'
import type { Input } from './writes.ts'

/**
 * Billing (DESIGN.md 16) on GraphQL, through the same service as /v1/account/billing: the owner's
 * only (the frame's `billing` right). What Stripe answers is applied by the service in its own
 * transactions, as on /v1; the request's audit record names the operation.
 */

const BILLING = { right: 'billing' } as const

function addOnNodes(addOns: BillingView['add_ons']) {
  return addOns.map((a) => ({ id: a.id, quantity: a.quantity }))
}

function causeOf(context: GraphqlContext): Cause {
  const request = requestOf(context)
  const entry = graphqlAuditEntry(request, context, 200)
  return {
    operation: entry.operation,
    method: entry.method,
    path: entry.path,
    requestId: entry.requestId,
    ip: entry.ip,
    userId: entry.userId ?? null,
    tokenId: entry.tokenId,
    clientId: entry.clientId,
  }
}

export const billingResolvers = {
  Query: {
    async billing(_root: unknown, _args: unknown, context: GraphqlContext) {
      const principal = allowed(context, BILLING)
      const view = await context.app.billing.view(principal.accountId)
      return {
        plan: view.plan,
        interval: view.interval,
        status: view.status,
        addOns: addOnNodes(view.add_ons),
        currentPeriodEnd: view.current_period_end,
        cancelAtPeriodEnd: view.cancel_at_period_end,
        scheduledChange: view.scheduled_change && {
          plan: view.scheduled_change.plan,
          interval: view.scheduled_change.interval,
          addOns: addOnNodes(view.scheduled_change.add_ons),
          at: view.scheduled_change.at,
        },
        available: view.available,
        billingPageUrl: `${context.app.config.BASE_URL}/app/billing`,
      }
    },

    async invoices(_root: unknown, args: { first?: number | null }, context: GraphqlContext) {
      const principal = allowed(context, BILLING)
      const first = args.first ?? 24
      if (!Number.isInteger(first) || first < 1 || first > 100)
        throw new errors.validationFailed("The argument 'first' must be between 1 and 100")
      if (!context.app.billing.available) return []
      const invoices = await context.app.billing.invoices(principal.accountId, first)
      return invoices.map((i) => ({
        id: i.id,
        number: i.number,
        createdAt: i.created_at,
        totalCents: i.total_cents,
        currency: i.currency,
        status: i.status,
        pdfUrl: i.pdf_url,
      }))
    },
  },
  Mutation: {
    async changePlan(
      _root: unknown,
      {
        input,
      }: Input<{
        plan: PlanRequest['plan']
        interval?: PlanRequest['interval'] | null
        addOns?: Array<{ id: string; quantity: number }> | null
      }>,
      context: GraphqlContext,
    ) {
      const principal = allowed(context, { ...BILLING, access: 'write' })
      return context.app.billing.change(
        principal.accountId,
        undefined,
        { plan: input.plan, interval: input.interval ?? 'month', addOns: addOnQuantities(input.addOns) },
        causeOf(context),
      )
    },

    async openBillingPortal(_root: unknown, _args: unknown, context: GraphqlContext) {
      const principal = allowed(context, { ...BILLING, access: 'write' })
      return { url: await context.app.billing.portal(principal.accountId), effective: null }
    },
  },
}
