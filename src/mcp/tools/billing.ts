import { Type, type Static } from 'typebox'
import type { Cause } from '../../domain/billing/apply.ts'
import { addOnQuantities, AddOn, Billing, Checkout, Invoice, Redirect } from '../../domain/billing/schemas.ts'
import { accountTool, type AccountCall } from '../account.ts'

/**
 * Billing (DESIGN.md 16) as tools, through the same service as /v1/account/billing: the owner's on
 * every plan, free included (paying is how an account gets API access). A change answers the
 * address to send the person to (Stripe's Checkout for a first subscription); the agent never pays.
 */

const strict = { additionalProperties: false } as const
const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

function causeOf(call: AccountCall, operation: string): Cause {
  const { request, auth, userId } = call
  return {
    operation,
    method: request.method,
    path: request.routeOptions.url ?? '/mcp',
    requestId: request.id,
    ip: request.ip,
    userId,
    tokenId: null,
    clientId: auth.clientId,
  }
}

export const billingTools = [
  accountTool({
    name: 'get_billing',
    title: 'Get the plan and billing',
    description:
      'The account’s plan, how it is billed (month or year), its add-ons, the subscription’s state, the end of the period paid for and ' +
      'a downgrade booked for then; `available` says whether paying online is set up. Owners only; billing_page is where a person pays in a browser.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    right: 'billing',
    input: Type.Object({}, strict),
    output: Type.Object({ ...Billing.properties, billing_page: Type.String() }, strict),
    run: async (_args, call) => ({
      // The view's add-on ids come from the price list's own list (ADD_ONS).
      ...((await call.app.billing.view(call.accountId)) as Static<typeof Billing>),
      billing_page: `${call.app.config.BASE_URL}/app/billing`,
    }),
  }),
  accountTool({
    name: 'list_invoices',
    title: 'List invoices',
    description: 'The account’s invoices, newest first, with their totals (VAT included where it applies) and PDF links. Owners only.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    right: 'billing',
    input: Type.Object({}, strict),
    output: Type.Object({ data: Type.Array(Invoice) }, strict),
    run: async (_args, call) => ({ data: call.app.billing.available ? await call.app.billing.invoices(call.accountId) : [] }),
  }),
  accountTool({
    name: 'change_plan',
    title: 'Change the plan',
    description:
      'Changes the plan, monthly or yearly, with add-ons and their quantities (extra_domain, extra_seat). A first subscription answers ' +
      'the url of Stripe’s Checkout page: give it to the person, who pays there. A running subscription is changed at once: an upgrade ' +
      'applies now, prorated; a downgrade, or plan free (a cancellation), at the end of the period paid for. Owners only; ' +
      'billing_unavailable when paying online is not set up (the operator changes plans then).',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    scope: 'mcp:tools',
    access: 'write',
    right: 'billing',
    input: Type.Object({ ...Checkout.properties, add_ons: Type.Optional(Type.Array(AddOn, { maxItems: 4 })) }, strict),
    output: Redirect,
    run: async (args, call) =>
      call.app.billing.change(
        call.accountId,
        undefined,
        { plan: args.plan, interval: args.interval ?? 'month', addOns: addOnQuantities(args.add_ons) },
        causeOf(call, 'change_plan'),
      ),
  }),
  accountTool({
    name: 'open_billing_portal',
    title: 'Open the billing portal',
    description:
      'The url of Stripe’s Customer Portal for this account, where the person changes the card, downloads invoices or cancels. Owners only; ' +
      'the account must have paid once.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    scope: 'mcp:tools',
    access: 'write',
    right: 'billing',
    input: Type.Object({}, strict),
    output: Redirect,
    run: async (_args, call) => ({ url: await call.app.billing.portal(call.accountId) }),
  }),
]
