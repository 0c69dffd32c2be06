import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { addOnAvailable, type AddOnQuantities } from '../../domain/accounts/entitlements.ts'
import { ADD_ONS, isPlan, loadPricing, PLANS, type AddOnId, type Plan } from '../../domain/accounts/plans.ts'
import type { Cause } from '../../domain/billing/apply.ts'
import type { BillingView, Invoice } from '../../domain/billing/service.ts'
import { classify } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { recordRefusal } from '../audited-change.ts'
import { dataTable } from '../layout.ts'
import { plainPlanWords } from '../refusal-words.ts'

const pricing = loadPricing()
const PLAN = new Map(pricing.plans.map((p) => [p.id, p]))
const ADD_ON = new Map(pricing.add_ons.map((a) => [a.id, a]))

/** "€9", "€86.40". */
function euros(cents: number): string {
  return `€${cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2)}`
}

function day(value: string | null | undefined): string {
  if (!value) return '–'
  return new Date(value).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
}

const STATUS_WORDS: Record<BillingView['status'], string> = {
  active: 'paid and active',
  trialing: 'in its trial',
  past_due: 'payment overdue: we are trying the card again',
  canceled: 'ended',
  manual: 'set by the operator',
  none: 'not paid online',
}

/** What the person typed into the plan form, kept when it is shown again with a problem. */
interface Choice {
  plan?: string
  interval?: string
  quantities: Partial<Record<AddOnId, string>>
}

const Form = Type.Object(
  {
    _csrf: Type.Optional(Type.String({ maxLength: 200 })),
    plan: Type.String({ maxLength: 20 }),
    interval: Type.Optional(Type.String({ maxLength: 10 })),
    ...Object.fromEntries(ADD_ONS.map((id) => [`add_on_${id}`, Type.Optional(Type.String({ maxLength: 6 }))])),
  },
  { additionalProperties: false },
)
type FormBody = { plan: string; interval?: string } & Partial<Record<`add_on_${AddOnId}`, string>>

function addOnsLine(addOns: ReadonlyArray<{ id: string; quantity: number }>): string {
  if (addOns.length === 0) return 'none'
  return addOns
    .map((a) => {
      const terms = ADD_ON.get(a.id as AddOnId)
      return terms?.per_unit ? `${terms.name} ×${a.quantity}` : (terms?.name ?? a.id)
    })
    .join(', ')
}

/** The plan as every member sees it: its name, state, add-ons, the next invoice and a change booked for the period's end. */
function planCard(view: BillingView): SafeHtml {
  const name = PLAN.get(view.plan)?.name ?? view.plan
  const paying = view.status === 'active' || view.status === 'trialing' || view.status === 'past_due'
  return html`<section class="card" aria-labelledby="current-h"><h2 id="current-h">Your plan</h2>
<p>Plan <strong>${name}</strong>${paying && view.interval ? html`, billed ${view.interval === 'year' ? 'yearly' : 'monthly'}` : ''}: ${STATUS_WORDS[view.status]}.</p>
<p>Add-ons: ${addOnsLine(view.add_ons)}.</p>
${
  paying && view.current_period_end
    ? view.cancel_at_period_end
      ? html`<p>The subscription ends on <strong>${day(view.current_period_end)}</strong>; the account then moves to the free plan, deleting nothing.</p>`
      : html`<p>Next invoice: <strong>${day(view.current_period_end)}</strong>.</p>`
    : ''
}
${
  view.scheduled_change && !view.cancel_at_period_end
    ? html`<p class="notice" role="status">From ${day(view.scheduled_change.at)}: plan ${PLAN.get(view.scheduled_change.plan)?.name ?? view.scheduled_change.plan}${view.scheduled_change.add_ons.length ? html`, add-ons ${addOnsLine(view.scheduled_change.add_ons)}` : ''}.</p>`
    : ''
}</section>`
}

function priceOf(plan: Plan, interval: 'month' | 'year'): string {
  const p = PLAN.get(plan)!
  return interval === 'month' ? `${euros(p.monthly_price_cents)} a month` : `${euros(p.yearly_price_cents)} a year`
}

/** The plans of the price list, for someone who cannot pay online: what each costs and includes. */
function planList(): SafeHtml {
  return dataTable(
    'Plans',
    ['Plan', 'Monthly', 'Yearly', 'Includes'],
    pricing.plans.map((p) => [
      p.name,
      p.monthly_price_cents === 0 ? 'Free' : euros(p.monthly_price_cents),
      p.yearly_price_cents === 0 ? '–' : euros(p.yearly_price_cents),
      p.features.join('; '),
    ]),
  )
}

/**
 * The plan form: plans with their monthly and yearly prices, the interval, the add-ons with their
 * quantities (0 for none). Each problem is shown beside its field; what was typed is kept.
 */
function planForm(csrf: string, view: BillingView, choice: Choice, problems: Partial<Record<string, string>>): SafeHtml {
  const chosenPlan = choice.plan ?? (view.plan === 'free' ? 'lite' : view.plan)
  const chosenInterval = choice.interval ?? view.interval ?? 'month'
  const current = new Map(view.add_ons.map((a) => [a.id, a.quantity]))
  const error = (field: string) => (problems[field] ? html`<p class="field-error" id="${field}-error">${problems[field]}</p>` : '')
  const invalid = (field: string) => (problems[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '')
  const paying = view.status === 'active' || view.status === 'trialing' || view.status === 'past_due'
  return html`<form method="post" action="/app/billing/checkout" class="card" aria-labelledby="choose-h"><input type="hidden" name="_csrf" value="${csrf}">
<h2 id="choose-h">${paying ? 'Change your plan' : 'Choose a plan'}</h2>
${problems['form'] ? html`<p class="error" role="alert">${problems['form']}</p>` : ''}
<fieldset class="field${problems['plan'] ? ' invalid' : ''}"><legend>Plan</legend>
${error('plan')}
${PLANS.filter((p) => p !== 'free').map(
  (p) =>
    html`<label class="check"><input type="radio" name="plan" value="${p}"${p === chosenPlan ? html` checked` : ''}${invalid('plan')}> <strong>${PLAN.get(p)!.name}</strong>: ${priceOf(p, 'month')} or ${priceOf(p, 'year')}</label><br>`,
)}
</fieldset>
<fieldset class="field"><legend>Billing</legend>
<label class="check"><input type="radio" name="interval" value="month"${chosenInterval === 'month' ? html` checked` : ''}> Monthly</label>
<label class="check"><input type="radio" name="interval" value="year"${chosenInterval === 'year' ? html` checked` : ''}> Yearly (${pricing.yearly_discount_percent}% off)</label>
</fieldset>
<fieldset class="field"><legend>Add-ons</legend>
${ADD_ONS.map((id) => {
  const terms = ADD_ON.get(id)!
  const typed = choice.quantities[id] ?? String(current.get(id) ?? 0)
  const field = `add_on_${id}`
  return html`<div class="field${problems[field] ? ' invalid' : ''}">${
    terms.per_unit
      ? html`<label for="${field}">${terms.name} (${euros(terms.monthly_price_cents)} a month each, from plan ${PLAN.get(terms.available_from)!.name})</label>
<p class="hint">${terms.description} 0 for none.</p>${error(field)}<input id="${field}" name="${field}" type="number" min="0" max="100" inputmode="numeric" value="${typed}"${invalid(field)}>`
      : html`${error(field)}<label class="check"><input type="checkbox" name="${field}" value="1"${typed !== '0' && typed !== '' ? html` checked` : ''}${invalid(field)}> ${terms.name} (${euros(terms.monthly_price_cents)} a month, from plan ${PLAN.get(terms.available_from)!.name}): ${terms.description}</label>`
  }</div>`
})}
</fieldset>
<p class="hint">${pricing.vat_note} ${paying ? 'A higher plan or more add-ons apply at once, and you pay the difference for the rest of the period; a lower plan or fewer add-ons apply when the period you paid for ends.' : 'You pay on Stripe’s secure page and come back here.'}</p>
<p><button type="submit">${paying ? 'Change plan' : 'Continue to payment'}</button></p>
</form>`
}

function invoiceTable(invoices: Invoice[]): SafeHtml {
  if (invoices.length === 0) return html`<p>No invoices yet.</p>`
  return dataTable(
    'Your invoices',
    ['Date', 'Number', 'Total', 'Status', 'PDF'],
    invoices.map((i) => [
      day(i.created_at),
      i.number ?? '–',
      `${(i.total_cents / 100).toFixed(2)} ${i.currency.toUpperCase()}`,
      i.status,
      i.pdf_url ? html`<a href="${i.pdf_url}">Download<span class="sr-only"> invoice ${i.number ?? ''}</span></a>` : '–',
    ]),
  )
}

/** Reads the plan form into a request; each problem named by its field. */
function readForm(body: FormBody): {
  choice: Choice
  problems: Record<string, string>
  plan?: Plan
  interval: 'month' | 'year'
  addOns: AddOnQuantities
} {
  const choice: Choice = { plan: body.plan, interval: body.interval, quantities: {} }
  const problems: Record<string, string> = {}
  const plan = isPlan(body.plan) ? body.plan : undefined
  if (!plan) problems['plan'] = 'Choose a plan.'
  const interval = body.interval === 'year' ? 'year' : 'month'
  const addOns: AddOnQuantities = {}
  for (const id of ADD_ONS) {
    const raw = body[`add_on_${id}`]
    choice.quantities[id] = raw ?? '0'
    if (raw === undefined || raw === '' || raw === '0') continue
    const terms = ADD_ON.get(id)!
    if (!/^\d{1,3}$/.test(raw) || Number(raw) > 100) {
      problems[`add_on_${id}`] = 'Give a whole number from 0 to 100.'
      continue
    }
    if (plan && plan !== 'free' && !addOnAvailable(plan, id)) {
      problems[`add_on_${id}`] = `${terms.name} comes with plan ${PLAN.get(terms.available_from)!.name} or above.`
      continue
    }
    addOns[id] = terms.per_unit ? Number(raw) : 1
  }
  return { choice, problems, ...(plan ? { plan } : {}), interval, addOns }
}

function causeOf(request: FastifyRequest): Cause {
  return {
    operation: request.routeOptions.config.operation ?? 'dashboard.billing',
    method: request.method,
    path: request.routeOptions.url ?? '/app/billing',
    requestId: request.id,
    ip: request.ip,
    userId: request.person.userId,
    tokenId: null,
    clientId: null,
  }
}

/**
 * Billing (DESIGN.md 16): every member sees the plan; owners choose a plan, monthly or yearly,
 * with add-ons and their quantities (Checkout for a first subscription, a prorated change after),
 * cancel at the period's end, open Stripe's Customer Portal and see the invoices and the next
 * invoice date. Without Stripe, the plans and how to reach the operator.
 */
export default async function billingSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const notices: Record<string, string> = {
    checkout: 'Thank you: your payment went through and your plan is active.',
    'checkout-canceled': 'The payment was not made; your plan is unchanged.',
    now: 'Your plan was changed. The difference for the rest of this period is on a new invoice.',
    period_end: 'Your change is booked for the end of the period you paid for.',
  }

  async function render(reply: FastifyReply, choice: Choice = { quantities: {} }, problems: Record<string, string> = {}, status = 200) {
    const { person } = reply.request
    const view = await app.billing.view(person.accountId)
    const owner = person.role === 'owner'
    const csrf = reply.formToken()
    let body: SafeHtml
    if (!owner) {
      body = html`${planCard(view)}<p class="notice view-only" role="note">Only an owner of this account manages its plan and payments.</p>`
    } else if (!view.available || view.status === 'manual') {
      body = html`${planCard(view)}<section class="card" aria-labelledby="plans-h"><h2 id="plans-h">Plans</h2>
<p>${view.status === 'manual' ? 'Your plan is managed by the operator of this service.' : 'Paying online is not set up on this service.'} To change your plan, write to the operator${app.config.SUPPORT_EMAIL ? html` at <a href="mailto:${app.config.SUPPORT_EMAIL}">${app.config.SUPPORT_EMAIL}</a>` : ' of this service'}, saying which plan and add-ons you would like.</p>
${planList()}<p class="muted">${pricing.vat_note}</p></section>`
    } else {
      // The forms' answers redirect to Stripe's pages: form-action 'self' would stop the browser following them.
      const csp = String(reply.getHeader('content-security-policy') ?? '')
      reply.header('content-security-policy', csp.replace(/form-action [^;]*/, `form-action 'self' ${app.billing.pageOrigins.join(' ')}`))
      const invoices = await app.billing.invoices(person.accountId).catch((error: unknown) => {
        reply.request.log.warn({ err: error }, 'invoices could not be read from Stripe')
        return undefined
      })
      const paying = view.status === 'active' || view.status === 'trialing' || view.status === 'past_due'
      const csrfField = html`<input type="hidden" name="_csrf" value="${csrf}">`
      body = html`${planCard(view)}
${planForm(csrf, view, choice, problems)}
${
  paying
    ? html`<section class="card" aria-labelledby="manage-h"><h2 id="manage-h">Card, invoices and cancelling</h2>
<form method="post" action="/app/billing/portal" class="inline">${csrfField}<button type="submit" class="secondary">Change the card or billing address</button></form>
${
  view.cancel_at_period_end
    ? ''
    : html`<form method="post" action="/app/billing/checkout" class="inline">${csrfField}<input type="hidden" name="plan" value="free"><button type="submit" class="danger">Cancel at the end of the period</button></form>`
}
</section>`
    : ''
}
<section aria-labelledby="invoices-h"><h2 id="invoices-h">Invoices</h2>
${invoices ? invoiceTable(invoices) : html`<p>The invoices cannot be shown just now; try again shortly.</p>`}</section>`
    }
    reply.code(status)
    const done = (reply.request.query as { done?: string }).done
    return reply.page('Billing', 'billing', body, done && notices[done] ? { notice: notices[done] } : {})
  }

  routes.get(
    '/billing',
    {
      config: { operation: 'dashboard.billing' },
      schema: {
        hide: true,
        querystring: Type.Object(
          {
            done: Type.Optional(Type.String({ maxLength: 40 })),
            session_id: Type.Optional(Type.String({ maxLength: 300 })),
            plan: Type.Optional(Type.String({ maxLength: 20 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { session_id: sessionId, plan } = request.query
      // Back from Checkout: the subscription is read back now, whether or not Stripe's event came first.
      if (sessionId && request.person.role === 'owner' && app.billing.available) {
        await app.billing.returnFromCheckout(request.person.accountId, sessionId, causeOf(request)).catch((error: unknown) => {
          request.log.warn({ err: error }, 'the finished checkout could not be read back; its event will bring it')
        })
      }
      return render(reply, { ...(plan && isPlan(plan) && plan !== 'free' ? { plan } : {}), quantities: {} })
    },
  )

  routes.post(
    '/billing/checkout',
    {
      config: { operation: 'dashboard.billing.checkout', role: 'owner' },
      schema: { hide: true, body: Form },
    },
    async (request, reply) => {
      const { choice, problems, plan, interval, addOns } = readForm(request.body)
      if (!plan || Object.keys(problems).length) {
        await recordRefusal(request, 400)
        return render(reply, choice, problems, 400)
      }
      try {
        const answer = await app.billing.change(
          request.person.accountId,
          request.person.email,
          { plan, interval, addOns },
          causeOf(request),
        )
        if (answer.effective === 'checkout') return reply.redirect(answer.url, 303)
        return reply.redirect(`/app/billing?done=${answer.effective}`, 303)
      } catch (error) {
        const refusal = classify(error as FastifyError)
        if (refusal.status >= 500 && refusal.code !== 'billing_unavailable') throw error
        await recordRefusal(request, refusal.status)
        return render(reply, choice, { form: plainPlanWords(refusal.detail) }, refusal.status)
      }
    },
  )

  routes.post(
    '/billing/portal',
    {
      config: { operation: 'dashboard.billing.portal', role: 'owner' },
      schema: { hide: true, body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }) },
    },
    async (request, reply) => reply.redirect(await app.billing.portal(request.person.accountId), 303),
  )
}
