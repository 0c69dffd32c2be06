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
import { planRefusal } from '../refusal-words.ts'
import type { MessageKey, Translator } from '../../domain/i18n/translator.ts'

const pricing = loadPricing()
const PLAN = new Map(pricing.plans.map((p) => [p.id, p]))
const ADD_ON = new Map(pricing.add_ons.map((a) => [a.id, a]))

/** "€9", "€86.40"; "9 €", "86,40 €": whole euros without cents, in the page's language. */
function euros(t: Translator, cents: number): string {
  const digits = cents % 100 === 0 ? 0 : 2
  return new Intl.NumberFormat(t.lang, {
    style: 'currency',
    currency: 'EUR',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(cents / 100)
}

/** A day written out ("28 November 2026", "28. November 2026", "28 novembre 2026"). */
function day(t: Translator, value: string | null | undefined): string {
  if (!value) return '–'
  return new Date(value).toLocaleDateString(t.lang === 'en' ? 'en-GB' : t.lang, {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

/** An add-on's name and description as the price list gives them, in the page's language. */
const addOnName = (t: Translator, id: string) => (ADD_ONS.includes(id as AddOnId) ? t.t(`billing.addOn.${id as AddOnId}`) : id)
const addOnDescription = (t: Translator, id: AddOnId) => t.t(`billing.addOn.${id}.description` as MessageKey)

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

function addOnsLine(t: Translator, addOns: ReadonlyArray<{ id: string; quantity: number }>): string {
  if (addOns.length === 0) return t.t('overview.addOns.none')
  return addOns
    .map((a) => {
      const terms = ADD_ON.get(a.id as AddOnId)
      return terms?.per_unit ? `${addOnName(t, a.id)} ×${a.quantity}` : addOnName(t, a.id)
    })
    .join(', ')
}

/** The plan as every member sees it: its name, state, add-ons, the next invoice and a change booked for the period's end. */
function planCard(t: Translator, view: BillingView): SafeHtml {
  const name = PLAN.get(view.plan)?.name ?? view.plan
  const paying = view.status === 'active' || view.status === 'trialing' || view.status === 'past_due'
  const strong = (words: SafeHtml) => html`<strong>${words}</strong>`
  return html`<section class="card" aria-labelledby="current-h"><h2 id="current-h">${t.t('billing.current')}</h2>
<p>${t.rich('billing.current.line', { plan: name, interval: paying && view.interval ? view.interval : 'none', status: view.status }, { strong })}</p>
<p>${t.t('billing.addOns.line', { addOns: addOnsLine(t, view.add_ons) })}</p>
${
  paying && view.current_period_end
    ? view.cancel_at_period_end
      ? html`<p>${t.rich('billing.endsOn', { day: day(t, view.current_period_end) }, { strong })}</p>`
      : html`<p>${t.rich('billing.nextInvoice', { day: day(t, view.current_period_end) }, { strong })}</p>`
    : ''
}
${
  view.scheduled_change && !view.cancel_at_period_end
    ? html`<p class="notice" role="status">${t.t('billing.scheduled', {
        day: day(t, view.scheduled_change.at),
        plan: PLAN.get(view.scheduled_change.plan)?.name ?? view.scheduled_change.plan,
        addOns: view.scheduled_change.add_ons.length ? addOnsLine(t, view.scheduled_change.add_ons) : 'none',
      })}</p>`
    : ''
}</section>`
}

function priceOf(t: Translator, plan: Plan, interval: 'month' | 'year'): string {
  const p = PLAN.get(plan)!
  return interval === 'month'
    ? t.t('billing.perMonth', { price: euros(t, p.monthly_price_cents) })
    : t.t('billing.perYear', { price: euros(t, p.yearly_price_cents) })
}

/** The plans of the price list, for someone who cannot pay online: what each costs and includes. */
function planList(t: Translator): SafeHtml {
  return dataTable(
    t.t('billing.plans'),
    [t.t('billing.col.plan'), t.t('billing.col.monthly'), t.t('billing.col.yearly'), t.t('billing.col.includes')],
    pricing.plans.map((p) => [
      p.name,
      p.monthly_price_cents === 0 ? t.t('billing.free') : euros(t, p.monthly_price_cents),
      p.yearly_price_cents === 0 ? '–' : euros(t, p.yearly_price_cents),
      PLANS.includes(p.id) ? t.t(`billing.features.${p.id}`) : p.features.join('; '),
    ]),
  )
}

/**
 * The plan form: plans with their monthly and yearly prices, the interval, the add-ons with their
 * quantities (0 for none). Each problem is shown beside its field; what was typed is kept.
 */
function planForm(t: Translator, csrf: string, view: BillingView, choice: Choice, problems: Partial<Record<string, string>>): SafeHtml {
  const chosenPlan = choice.plan ?? (view.plan === 'free' ? 'lite' : view.plan)
  const chosenInterval = choice.interval ?? view.interval ?? 'month'
  const current = new Map(view.add_ons.map((a) => [a.id, a.quantity]))
  const error = (field: string) => (problems[field] ? html`<p class="field-error" id="${field}-error">${problems[field]}</p>` : '')
  const invalid = (field: string) => (problems[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '')
  const paying = view.status === 'active' || view.status === 'trialing' || view.status === 'past_due'
  return html`<form method="post" action="/app/billing/checkout" class="card" aria-labelledby="choose-h"><input type="hidden" name="_csrf" value="${csrf}">
<h2 id="choose-h">${paying ? t.t('billing.change') : t.t('billing.choose')}</h2>
${problems['form'] ? html`<p class="error" role="alert">${problems['form']}</p>` : ''}
<fieldset class="field${problems['plan'] ? ' invalid' : ''}"><legend>${t.t('billing.col.plan')}</legend>
${error('plan')}
${PLANS.filter((p) => p !== 'free').map(
  (p) =>
    html`<label class="check"><input type="radio" name="plan" value="${p}"${p === chosenPlan ? html` checked` : ''}${invalid('plan')}> <strong>${PLAN.get(p)!.name}</strong>: ${t.t('billing.monthOrYear', { month: priceOf(t, p, 'month'), year: priceOf(t, p, 'year') })}</label><br>`,
)}
</fieldset>
<fieldset class="field"><legend>${t.t('billing.interval')}</legend>
<label class="check"><input type="radio" name="interval" value="month"${chosenInterval === 'month' ? html` checked` : ''}> ${t.t('billing.col.monthly')}</label>
<label class="check"><input type="radio" name="interval" value="year"${chosenInterval === 'year' ? html` checked` : ''}> ${t.t('billing.yearlyOff', { percent: pricing.yearly_discount_percent })}</label>
</fieldset>
<fieldset class="field"><legend>${t.t('billing.addOns')}</legend>
${ADD_ONS.map((id) => {
  const terms = ADD_ON.get(id)!
  const typed = choice.quantities[id] ?? String(current.get(id) ?? 0)
  const field = `add_on_${id}`
  return html`<div class="field${problems[field] ? ' invalid' : ''}">${
    terms.per_unit
      ? html`<label for="${field}">${t.t('billing.addOn.perUnit', { name: addOnName(t, id), price: euros(t, terms.monthly_price_cents), plan: PLAN.get(terms.available_from)!.name })}</label>
<p class="hint">${addOnDescription(t, id)} ${t.t('billing.addOn.zero')}</p>${error(field)}<input id="${field}" name="${field}" type="number" min="0" max="100" inputmode="numeric" value="${typed}"${invalid(field)}>`
      : html`${error(field)}<label class="check"><input type="checkbox" name="${field}" value="1"${typed !== '0' && typed !== '' ? html` checked` : ''}${invalid(field)}> ${t.t('billing.addOn.once', { name: addOnName(t, id), price: euros(t, terms.monthly_price_cents), plan: PLAN.get(terms.available_from)!.name, description: addOnDescription(t, id) })}</label>`
  }</div>`
})}
</fieldset>
<p class="hint">${t.t('billing.vat')} ${paying ? t.t('billing.changeNote') : t.t('billing.stripeNote')}</p>
<p><button type="submit">${paying ? t.t('billing.changeSubmit') : t.t('billing.pay')}</button></p>
</form>`
}

function invoiceTable(t: Translator, invoices: Invoice[]): SafeHtml {
  if (invoices.length === 0) return html`<p>${t.t('billing.invoices.none')}</p>`
  return dataTable(
    t.t('billing.invoices.table'),
    [t.t('billing.col.date'), t.t('billing.col.number'), t.t('billing.col.total'), t.t('sites.col.status'), 'PDF'],
    invoices.map((i) => [
      day(t, i.created_at),
      i.number ?? '–',
      t.price(i.total_cents, i.currency.toUpperCase()),
      ['draft', 'open', 'paid', 'uncollectible', 'void'].includes(i.status) ? t.t(`billing.invoice.${i.status as 'paid'}`) : i.status,
      i.pdf_url
        ? html`<a href="${i.pdf_url}">${t.rich('billing.invoice.download', { number: i.number ?? '' }, { hidden: (words) => html`<span class="sr-only">${words}</span>` })}</a>`
        : '–',
    ]),
  )
}

/** Reads the plan form into a request; each problem named by its field. */
function readForm(
  t: Translator,
  body: FormBody,
): {
  choice: Choice
  problems: Record<string, string>
  plan?: Plan
  interval: 'month' | 'year'
  addOns: AddOnQuantities
} {
  const choice: Choice = { plan: body.plan, interval: body.interval, quantities: {} }
  const problems: Record<string, string> = {}
  const plan = isPlan(body.plan) ? body.plan : undefined
  if (!plan) problems['plan'] = t.t('billing.choosePlan')
  const interval = body.interval === 'year' ? 'year' : 'month'
  const addOns: AddOnQuantities = {}
  for (const id of ADD_ONS) {
    const raw = body[`add_on_${id}`]
    choice.quantities[id] = raw ?? '0'
    if (raw === undefined || raw === '' || raw === '0') continue
    const terms = ADD_ON.get(id)!
    if (!/^\d{1,3}$/.test(raw) || Number(raw) > 100) {
      problems[`add_on_${id}`] = t.t('billing.wholeNumber')
      continue
    }
    if (plan && plan !== 'free' && !addOnAvailable(plan, id)) {
      problems[`add_on_${id}`] = t.t('billing.addOn.from', { name: addOnName(t, id), plan: PLAN.get(terms.available_from)!.name })
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
  const notices: Record<string, MessageKey> = {
    checkout: 'billing.notice.checkout',
    'checkout-canceled': 'billing.notice.canceled',
    now: 'billing.notice.now',
    period_end: 'billing.notice.periodEnd',
  }

  async function render(reply: FastifyReply, choice: Choice = { quantities: {} }, problems: Record<string, string> = {}, status = 200) {
    const { person, t } = reply.request
    const view = await app.billing.view(person.accountId)
    const owner = person.role === 'owner'
    const csrf = reply.formToken()
    let body: SafeHtml
    if (!owner) {
      body = html`${planCard(t, view)}<p class="notice view-only" role="note">${t.t('billing.ownersOnly')}</p>`
    } else if (!view.available || view.status === 'manual') {
      const support = app.config.SUPPORT_EMAIL
      body = html`${planCard(t, view)}<section class="card" aria-labelledby="plans-h"><h2 id="plans-h">${t.t('billing.plans')}</h2>
<p>${view.status === 'manual' ? t.t('billing.manual') : t.t('billing.offline')} ${t.rich('billing.writeOperator', { email: support ?? '', known: support ? 'yes' : 'no' }, { link: (words) => html`<a href="mailto:${support ?? ''}">${words}</a>` })}</p>
${planList(t)}<p class="muted">${t.t('billing.vat')}</p></section>`
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
      body = html`${planCard(t, view)}
${planForm(t, csrf, view, choice, problems)}
${
  paying
    ? html`<section class="card" aria-labelledby="manage-h"><h2 id="manage-h">${t.t('billing.manage')}</h2>
<form method="post" action="/app/billing/portal" class="inline">${csrfField}<button type="submit" class="secondary">${t.t('billing.portal')}</button></form>
${
  view.cancel_at_period_end
    ? ''
    : html`<form method="post" action="/app/billing/checkout" class="inline">${csrfField}<input type="hidden" name="plan" value="free"><button type="submit" class="danger">${t.t('billing.cancel')}</button></form>`
}
</section>`
    : ''
}
<section aria-labelledby="invoices-h"><h2 id="invoices-h">${t.t('billing.invoices')}</h2>
${invoices ? invoiceTable(t, invoices) : html`<p>${t.t('billing.invoices.unavailable')}</p>`}</section>`
    }
    reply.code(status)
    const done = (reply.request.query as { done?: string }).done
    return reply.page(t.t('billing.title'), 'billing', body, done && notices[done] ? { notice: t.t(notices[done]) } : {})
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
      const { choice, problems, plan, interval, addOns } = readForm(request.t, request.body)
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
        const words =
          refusal.code === 'billing_unavailable' && request.t.lang !== 'en'
            ? request.t.t('billing.offline')
            : planRefusal(request.t, refusal, error)
        return render(reply, choice, { form: words }, refusal.status)
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
