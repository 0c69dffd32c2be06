import createClient from 'openapi-fetch'
import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import { setManual } from '../../src/domain/billing/billing-state.ts'
import { syncCatalogue } from '../../src/domain/billing/catalogue.ts'
import { createStripe } from '../../src/domain/billing/stripe-client.ts'
import { loadPricing } from '../../src/domain/accounts/plans.ts'
import { readOutbox } from '../../src/infra/mailer.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startFakeStripe } from '../helpers/fake-stripe.ts'
import type { paths } from '../rest/generated/v1.ts'
import { makeTeam, type Team } from '../teams/helpers.ts'

// Self-serve billing (DESIGN.md 16) against a fake of Stripe's API on loopback, through the
// official SDK (STRIPE_API_BASE) and the client generated from the OpenAPI document.
const SECRET_KEY = 'sk_test_fake_billing'
const WEBHOOK_SECRET = 'whsec_dGVzdC1zZWNyZXQtb2YtdGhlLWZha2U'
const fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET })
const { app } = await buildTestApp({
  env: {
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: fake.url,
    BASE_URL: 'http://localhost:3000',
  },
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const baseUrl = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : ''
fake.state.webhookUrl = `${baseUrl}/webhooks/stripe`
// The service reads subscriptions at the fake's time, so a period's end can come within a test.
app.billing.deps.now = () => new Date(fake.state.clock * 1000)
const stripe = createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: fake.url })!
await syncCatalogue(stripe)
// The same service without Stripe configured.
const { app: plain } = await buildTestApp()
await plain.listen({ port: 0, host: '127.0.0.1' })

const clientOf = (member: { api: { authorization: string } }) => createClient<paths>({ baseUrl, headers: member.api })

async function plan(accountId: string) {
  const row = await app.db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirstOrThrow()
  const addOns = await app.db
    .selectFrom('account_add_ons')
    .select(['add_on', 'quantity'])
    .where('account_id', '=', accountId)
    .orderBy('add_on')
    .execute()
  return { plan: row.plan, addOns: Object.fromEntries(addOns.map((a) => [a.add_on, a.quantity])) }
}

const planEvents = (accountId: string) =>
  app.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'account.plan_changed')
    .orderBy('created_at')
    .execute()

/** A free account's owner pays a first subscription on the fake's Checkout. */
async function subscribe(
  team: Team,
  body: { plan: 'lite' | 'plus' | 'pro' | 'max'; interval?: 'month' | 'year'; add_ons?: Array<{ id: any; quantity: number }> },
) {
  const started = await clientOf(team.owner).POST('/v1/account/billing/checkout', { body })
  expect(started.response.status).toBe(200)
  expect(started.data?.effective).toBe('checkout')
  const sessionId = new URL(started.data!.url).pathname.split('/').pop()!
  await fake.completeCheckout(sessionId)
  expect(fake.answers.slice(-3).map((a) => `${a.status} ${a.status === 200 ? '' : a.body}`)).toEqual(['200 ', '200 ', '200 '])
  const customer = fake.sessions.get(sessionId)!['customer'] as string
  return fake.subscriptionOfCustomer(customer)!
}

describe('billing sync', () => {
  it('makes a product per plan and add-on and a price per interval, runs again without doubling, and replaces a changed price', async () => {
    const own = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET })
    const client = createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: own.url })!
    const first = await syncCatalogue(client)
    expect(first.products.created.sort()).toEqual(
      [
        'wps_addon_ai_sales_assistant',
        'wps_addon_extra_domain',
        'wps_addon_extra_seat',
        'wps_addon_premium_seo_reports',
        'wps_plan_lite',
        'wps_plan_max',
        'wps_plan_plus',
        'wps_plan_pro',
      ].sort(),
    )
    expect(first.prices.created).toHaveLength(16)
    const lite = [...own.prices.values()].find((p) => p['lookup_key'] === 'plan_lite_year')!
    expect(lite).toMatchObject({ unit_amount: 8640, currency: 'eur', recurring: { interval: 'year' }, tax_behavior: 'exclusive' })

    const again = await syncCatalogue(client)
    expect(again.products.created).toEqual([])
    expect(again.prices.created).toEqual([])
    expect(again.prices.unchanged).toHaveLength(16)
    expect(own.prices.size).toBe(16)

    const pricing = loadPricing()
    const changed = {
      ...pricing,
      plans: pricing.plans.map((p) => (p.id === 'lite' ? { ...p, monthly_price_cents: 1000, yearly_price_cents: 9600 } : p)),
    }
    const third = await syncCatalogue(client, changed)
    expect(third.prices.replaced.sort()).toEqual(['plan_lite_month', 'plan_lite_year'])
    expect(own.prices.size).toBe(18)
    const old = own.prices.get(lite['id'])!
    expect(old).toMatchObject({ active: false, lookup_key: null })
    const current = [...own.prices.values()].find((p) => p['lookup_key'] === 'plan_lite_year')!
    expect(current).toMatchObject({ active: true, unit_amount: 9600 })
  })
})

describe('GET /v1/account/billing and the first checkout', () => {
  it('sends a free account to Checkout, and once paid the account is on lite with the event, the audit record and the invoice', async () => {
    const team = await makeTeam(app, 'free')
    const client = clientOf(team.owner)
    const before = await client.GET('/v1/account/billing')
    expect(before.response.status).toBe(200)
    expect(before.data).toMatchObject({ plan: 'free', status: 'none', interval: null, add_ons: [], available: true })

    const started = await client.POST('/v1/account/billing/checkout', { body: { plan: 'lite', interval: 'month' } })
    expect(started.data?.url).toMatch(new RegExp(`^${fake.url}/checkout/cs_test_`))
    const sessionId = started.data!.url.split('/').pop()!
    const session = fake.sessions.get(sessionId)!
    expect(session).toMatchObject({
      mode: 'subscription',
      client_reference_id: team.accountId,
      billing_address_collection: 'required',
      tax_id_collection: { enabled: true },
      success_url: 'http://localhost:3000/app/billing?done=checkout&session_id={CHECKOUT_SESSION_ID}',
    })
    expect(fake.customers.get(session['customer'])?.['email']).toBe(team.owner.email)
    expect(await plan(team.accountId)).toEqual({ plan: 'free', addOns: {} })

    await fake.completeCheckout(sessionId)
    expect(await plan(team.accountId)).toEqual({ plan: 'lite', addOns: {} })
    const after = await client.GET('/v1/account/billing')
    expect(after.data).toMatchObject({
      plan: 'lite',
      status: 'active',
      interval: 'month',
      cancel_at_period_end: false,
      scheduled_change: null,
    })
    expect(after.data?.current_period_end).toBe(new Date((fake.state.clock + 30 * 86_400) * 1000).toISOString())

    const events = await planEvents(team.accountId)
    expect(events).toHaveLength(1)
    expect(events[0]!.data).toMatchObject({
      account_id: team.accountId,
      plan: 'lite',
      previous_plan: 'free',
      interval: 'month',
      status: 'active',
    })
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['operation', 'path'])
      .where('account_id', '=', team.accountId)
      .where('operation', 'like', 'billing.%')
      .execute()
    expect(audit.map((a) => a.path)).toEqual(['/webhooks/stripe'])

    const invoices = await client.GET('/v1/account/invoices')
    expect(invoices.data?.data).toEqual([
      expect.objectContaining({
        total_cents: 900,
        currency: 'eur',
        status: 'paid',
        number: expect.stringMatching(/^FAKE-/),
        pdf_url: expect.stringContaining('/pdf'),
      }),
    ])
  })

  it('refuses an add-on the plan does not offer and a quantity on an add-on without one, in the problem shape', async () => {
    const team = await makeTeam(app, 'free')
    const client = clientOf(team.owner)
    const assistant = await client.POST('/v1/account/billing/checkout', {
      body: { plan: 'lite', add_ons: [{ id: 'ai_sales_assistant', quantity: 1 }] },
    })
    expect(assistant.response.status).toBe(403)
    expect(assistant.error).toMatchObject({ code: 'plan_required', status: 403 })
    const quantity = await client.POST('/v1/account/billing/checkout', {
      body: { plan: 'plus', add_ons: [{ id: 'ai_sales_assistant', quantity: 2 }] },
    })
    expect(quantity.response.status).toBe(400)
    expect(quantity.error).toMatchObject({ code: 'validation_failed' })
    const unknown = await client.POST('/v1/account/billing/checkout', { body: { plan: 'gold' as never } })
    expect(unknown.response.status).toBe(400)
    const cancel = await client.POST('/v1/account/billing/checkout', { body: { plan: 'free' } })
    expect(cancel.response.status).toBe(409)
  })

  it('refuses editors and viewers (role_required), and shows another account nothing', async () => {
    const team = await makeTeam(app, 'pro')
    for (const member of [team.editor, team.viewer]) {
      const client = clientOf(member)
      const read = await client.GET('/v1/account/billing')
      expect(read.response.status).toBe(403)
      expect(read.error).toMatchObject({ code: 'role_required' })
      const change = await client.POST('/v1/account/billing/checkout', { body: { plan: 'max' } })
      expect(change.response.status).toBe(403)
      expect((await client.GET('/v1/account/invoices')).response.status).toBe(403)
    }
    expect(fake.sessions.size).toBeGreaterThanOrEqual(0)
    const other = await makeTeam(app, 'free')
    const mine = await clientOf(other.owner).GET('/v1/account/billing')
    expect(mine.data?.plan).toBe('free')
  })
})

describe('changing a running subscription', () => {
  it('upgrades at once with a prorated invoice, and books add-on quantities', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'lite', add_ons: [{ id: 'extra_seat', quantity: 1 }] })
    expect(await plan(team.accountId)).toEqual({ plan: 'lite', addOns: { extra_seat: 1 } })
    // Half the month has gone.
    fake.state.clock += 15 * 86_400
    const client = clientOf(team.owner)
    const changed = await client.POST('/v1/account/billing/checkout', {
      body: {
        plan: 'plus',
        interval: 'month',
        add_ons: [
          { id: 'extra_seat', quantity: 3 },
          { id: 'extra_domain', quantity: 2 },
        ],
      },
    })
    expect(changed.data).toEqual({ url: 'http://localhost:3000/app/billing', effective: 'now' })
    expect(await plan(team.accountId)).toEqual({ plan: 'plus', addOns: { extra_seat: 3, extra_domain: 2 } })
    const items = (fake.subscriptions.get(subscription['id'])!['items'].data as Array<Record<string, any>>).map((i) => [
      i['price'].lookup_key,
      i['quantity'],
    ])
    expect(items.sort()).toEqual([
      ['addon_extra_domain_month', 2],
      ['addon_extra_seat_month', 3],
      ['plan_plus_month', 1],
    ])
    const update = fake.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription['id']}`).at(-1)!
    expect(update.body['proration_behavior']).toBe('always_invoice')

    const invoices = (await client.GET('/v1/account/invoices')).data!.data
    expect(invoices).toHaveLength(2)
    // Half a month of plus with 3 seats and 2 domains, less the unused half of lite with one seat.
    expect(invoices[0]!.total_cents).toBe(Math.round((1900 + 3 * 500 + 2 * 300) / 2) - Math.round((900 + 500) / 2))
    const view = (await client.GET('/v1/account/billing')).data!
    expect(view.add_ons).toEqual([
      { id: 'extra_domain', quantity: 2 },
      { id: 'extra_seat', quantity: 3 },
    ])
  })

  it('downgrades at the end of the period: the account keeps what it paid for until then', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'pro', add_ons: [{ id: 'extra_seat', quantity: 2 }] })
    const client = clientOf(team.owner)
    const changed = await client.POST('/v1/account/billing/checkout', { body: { plan: 'lite' } })
    expect(changed.data?.effective).toBe('period_end')
    expect(await plan(team.accountId)).toEqual({ plan: 'pro', addOns: { extra_seat: 2 } })
    const update = fake.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription['id']}`).at(-1)!
    expect(update.body['proration_behavior']).toBe('none')
    const view = (await client.GET('/v1/account/billing')).data!
    expect(view).toMatchObject({ plan: 'pro', scheduled_change: { plan: 'lite', add_ons: [], interval: 'month' } })

    await fake.endPeriod(subscription['id'])
    expect(await plan(team.accountId)).toEqual({ plan: 'lite', addOns: {} })
    expect((await planEvents(team.accountId)).map((e) => (e.data as { plan: string }).plan)).toEqual(['pro', 'lite'])
    const renewal = (await client.GET('/v1/account/invoices')).data!.data[0]!
    expect(renewal.total_cents).toBe(900)
  })

  it('cancels at the end of the period, then falls back to free deleting nothing', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'lite', interval: 'year' })
    const site = await app.db.selectFrom('sites').select('id').where('account_id', '=', team.accountId).execute()
    const client = clientOf(team.owner)
    const canceled = await client.POST('/v1/account/billing/checkout', { body: { plan: 'free' } })
    expect(canceled.data?.effective).toBe('period_end')
    expect((await client.GET('/v1/account/billing')).data).toMatchObject({
      plan: 'lite',
      interval: 'year',
      cancel_at_period_end: true,
      scheduled_change: { plan: 'free' },
    })
    await fake.endPeriod(subscription['id'])
    expect(await plan(team.accountId)).toEqual({ plan: 'free', addOns: {} })
    expect((await client.GET('/v1/account/billing')).data).toMatchObject({ plan: 'free', status: 'canceled', current_period_end: null })
    expect(await app.db.selectFrom('sites').select('id').where('account_id', '=', team.accountId).execute()).toEqual(site)
    // Subscribing again goes through Checkout.
    const again = await client.POST('/v1/account/billing/checkout', { body: { plan: 'lite' } })
    expect(again.data?.effective).toBe('checkout')
  })
})

describe('a failed payment', () => {
  it('keeps the plan while Stripe retries and mails the owner once; a retry that succeeds changes nothing more', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'plus' })
    await fake.failPayment(subscription['id'])
    expect(await plan(team.accountId)).toEqual({ plan: 'plus', addOns: {} })
    expect((await clientOf(team.owner).GET('/v1/account/billing')).data?.status).toBe('past_due')
    const mails = await readOutbox(app.db, app.keyring, team.owner.email)
    expect(mails.filter((m) => m.subject === 'Your payment did not go through')).toHaveLength(1)
    expect(await readOutbox(app.db, app.keyring, team.editor.email)).toEqual([])

    await fake.recoverPayment(subscription['id'])
    expect((await clientOf(team.owner).GET('/v1/account/billing')).data?.status).toBe('active')
    expect(await plan(team.accountId)).toEqual({ plan: 'plus', addOns: {} })
    expect(await planEvents(team.accountId)).toHaveLength(1)
  })

  it('falls back to free when every retry failed, deleting nothing', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'lite', add_ons: [{ id: 'premium_seo_reports', quantity: 1 }] })
    await fake.failPayment(subscription['id'])
    await fake.exhaustRetries(subscription['id'])
    expect(await plan(team.accountId)).toEqual({ plan: 'free', addOns: {} })
    const events = await planEvents(team.accountId)
    expect(events.at(-1)!.data).toMatchObject({ plan: 'free', previous_plan: 'lite', status: 'canceled' })
    expect(
      (
        await app.db
          .selectFrom('account_billing')
          .select('past_due_since')
          .where('account_id', '=', team.accountId)
          .executeTakeFirstOrThrow()
      ).past_due_since,
    ).toBeNull()
  })
})

describe('POST /webhooks/stripe', () => {
  it('handles each event once, late or out of order, reading the subscription back', async () => {
    const team = await makeTeam(app, 'free')
    fake.state.deliverEvents = false
    const started = await clientOf(team.owner).POST('/v1/account/billing/checkout', { body: { plan: 'lite' } })
    const sessionId = started.data!.url.split('/').pop()!
    await fake.completeCheckout(sessionId)
    const subscription = fake.subscriptionOfCustomer(fake.sessions.get(sessionId)!['customer'])!
    await fake.failPayment(subscription['id'])
    await fake.recoverPayment(subscription['id'])
    fake.state.deliverEvents = true
    // Newest first: the first event read shows the subscription as it is now (active), and every later one agrees.
    const held = [...fake.pending]
    await fake.deliverPending((events) => events.reverse())
    expect(await plan(team.accountId)).toEqual({ plan: 'lite', addOns: {} })
    expect((await clientOf(team.owner).GET('/v1/account/billing')).data?.status).toBe('active')
    // Nobody was mailed about a payment that had already been made good when the events came.
    expect((await readOutbox(app.db, app.keyring, team.owner.email)).filter((m) => m.subject.includes('payment'))).toEqual([])
    expect(await planEvents(team.accountId)).toHaveLength(1)

    const again = await fake.deliver(held[0]!)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ received: true, outcome: 'duplicate' })
    const handled = await app.db.selectFrom('stripe_events').select('id').where('account_id', '=', team.accountId).execute()
    expect(handled).toHaveLength(held.length)
  })

  it('refuses a forged, stale or missing signature with 400 and changes nothing', async () => {
    const team = await makeTeam(app, 'free')
    fake.state.deliverEvents = false
    const subscription = await subscribe(team, { plan: 'max' })
    fake.state.deliverEvents = true
    const event = fake.pending.find((e) => e['type'] === 'customer.subscription.created')!
    const forged = await fake.deliver(event, { secret: 'whsec_c29tZW9uZS1lbHNl' })
    expect(forged.status).toBe(400)
    expect(forged.headers.get('content-type')).toContain('application/problem+json')
    expect(await forged.json()).toMatchObject({ status: 400, code: 'invalid_signature' })
    const stale = await fake.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    expect(stale.status).toBe(400)
    const unsigned = await fetch(fake.state.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
    })
    expect(unsigned.status).toBe(400)
    // A signed body changed after signing.
    const header = Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(event), secret: WEBHOOK_SECRET })
    const tampered = await fetch(fake.state.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      body: JSON.stringify({ ...event, id: 'evt_other' }),
    })
    expect(tampered.status).toBe(400)
    expect(await plan(team.accountId)).toEqual({ plan: 'free', addOns: {} })
    expect(await app.db.selectFrom('stripe_events').select('id').where('id', '=', event['id']).execute()).toEqual([])
    fake.pending.splice(0)
    expect(subscription['status']).toBe('active')
  })

  it('leaves a plan the operator set by hand alone', async () => {
    const team = await makeTeam(app, 'free')
    const subscription = await subscribe(team, { plan: 'lite' })
    await setManual(app.db, team.accountId, true)
    await app.db.updateTable('accounts').set({ plan: 'max' }).where('id', '=', team.accountId).execute()
    await fake.exhaustRetries(subscription['id'])
    expect(await plan(team.accountId)).toEqual({ plan: 'max', addOns: {} })
    const view = (await clientOf(team.owner).GET('/v1/account/billing')).data!
    expect(view).toMatchObject({ plan: 'max', status: 'manual' })
    const refused = await clientOf(team.owner).POST('/v1/account/billing/checkout', { body: { plan: 'pro' } })
    expect(refused.response.status).toBe(409)
    expect(refused.error).toMatchObject({ code: 'billing_manual' })
  })
})

describe('the hourly reconciliation', () => {
  it('heals an event that never arrived', async () => {
    const team = await makeTeam(app, 'free')
    fake.state.deliverEvents = false
    const started = await clientOf(team.owner).POST('/v1/account/billing/checkout', { body: { plan: 'plus', interval: 'year' } })
    await fake.completeCheckout(started.data!.url.split('/').pop()!)
    fake.pending.splice(0)
    fake.state.deliverEvents = true
    expect(await plan(team.accountId)).toEqual({ plan: 'free', addOns: {} })
    const result = await app.billing.reconcile()
    expect(result.changed).toBeGreaterThanOrEqual(1)
    expect(await plan(team.accountId)).toEqual({ plan: 'plus', addOns: {} })
    expect((await clientOf(team.owner).GET('/v1/account/billing')).data).toMatchObject({ status: 'active', interval: 'year' })
    const audit = await app.db
      .selectFrom('audit_log')
      .select('operation')
      .where('account_id', '=', team.accountId)
      .where('operation', '=', 'billing.reconcile')
      .execute()
    expect(audit).toHaveLength(1)
    // Running it again changes nothing.
    await app.billing.reconcile()
    expect(await planEvents(team.accountId)).toHaveLength(1)
  })
})

describe('without Stripe', () => {
  it('answers the plan, no invoices, and 503 billing_unavailable for a change', async () => {
    const port = (plain.server.address() as { port: number }).port
    const team = await makeTeam(plain, 'free')
    const client = createClient<paths>({ baseUrl: `http://127.0.0.1:${port}`, headers: team.owner.api })
    expect((await client.GET('/v1/account/billing')).data).toMatchObject({ plan: 'free', status: 'none', available: false })
    expect((await client.GET('/v1/account/invoices')).data).toEqual({ data: [] })
    const refused = await client.POST('/v1/account/billing/checkout', { body: { plan: 'lite' } })
    expect(refused.response.status).toBe(503)
    expect(refused.error).toMatchObject({ code: 'billing_unavailable' })
    const hook = await fetch(`http://127.0.0.1:${port}/webhooks/stripe`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expect(hook.status).toBe(503)
  })
})
