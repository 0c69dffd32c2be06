import { describe, expect, it } from 'vitest'
import { syncCatalogue } from '../../src/domain/billing/catalogue.ts'
import { createStripe } from '../../src/domain/billing/stripe-client.ts'
import { startFakeStripe } from '../helpers/fake-stripe.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { graphqlAs } from '../graphql/helpers.ts'
import { makeTeam, type TeamMember } from '../teams/helpers.ts'

// Billing (DESIGN.md 16) on GraphQL and MCP, through the same service as /v1/account/billing,
// against the fake of Stripe's API on loopback: the plan read, a first checkout, an upgrade at
// once, the Customer Portal, invoices; editors refused; bad input answered in each protocol's terms.
const SECRET_KEY = 'sk_test_fake_interfaces'
const WEBHOOK_SECRET = 'whsec_aW50ZXJmYWNlcy1zZWNyZXQ'
const fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET })
const { app, base } = await startLiveApp({
  env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.url, RATE_LIMIT_FACTOR: '10' },
})
fake.state.webhookUrl = `${base}/webhooks/stripe`
app.billing.deps.now = () => new Date(fake.state.clock * 1000)
await syncCatalogue(createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: fake.url })!)
// The same service without Stripe.
const plain = await startLiveApp()

const graphql = (member: Pick<TeamMember, 'api'>, query: string, variables: Record<string, unknown> = {}, at = base) =>
  graphqlAs(at, member, query, variables)

const BILLING = `{ billing { plan interval status addOns { id quantity } currentPeriodEnd cancelAtPeriodEnd scheduledChange { plan at } available billingPageUrl } }`
const CHANGE = `mutation Change($input: ChangePlanInput!) { changePlan(input: $input) { url effective } }`

const sessionOf = (url: string) => new URL(url).pathname.split('/').pop()!

describe('billing on GraphQL', { timeout: 120_000 }, () => {
  it('reads the plan, starts a checkout, upgrades at once, opens the portal and lists invoices', async () => {
    const team = await makeTeam(app, 'plus')
    expect((await graphql(team.owner, BILLING)).data?.['billing']).toEqual({
      plan: 'plus',
      interval: null,
      status: 'none',
      addOns: [],
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      scheduledChange: null,
      available: true,
      billingPageUrl: `${base}/app/billing`,
    })
    const started = await graphql(team.owner, CHANGE, { input: { plan: 'plus', interval: 'year' } })
    expect(started.errors).toBeUndefined()
    expect(started.data?.['changePlan']).toEqual({ url: expect.stringContaining(`${fake.url}/checkout/`), effective: 'checkout' })
    await fake.completeCheckout(sessionOf(started.data!['changePlan'].url))
    expect((await graphql(team.owner, BILLING)).data?.['billing']).toMatchObject({ plan: 'plus', interval: 'year', status: 'active' })

    const upgraded = await graphql(team.owner, CHANGE, {
      input: { plan: 'pro', interval: 'year', addOns: [{ id: 'extra_seat', quantity: 2 }] },
    })
    expect(upgraded.data?.['changePlan']).toEqual({ url: `${base}/app/billing`, effective: 'now' })
    expect((await graphql(team.owner, BILLING)).data?.['billing']).toMatchObject({
      plan: 'pro',
      addOns: [{ id: 'extra_seat', quantity: 2 }],
      status: 'active',
    })
    // The same answer as /v1.
    const rest = (await (await fetch(`${base}/v1/account/billing`, { headers: team.owner.api })).json()) as Record<string, unknown>
    expect(rest).toMatchObject({ plan: 'pro', interval: 'year', status: 'active', add_ons: [{ id: 'extra_seat', quantity: 2 }] })

    const portal = await graphql(team.owner, 'mutation { openBillingPortal { url effective } }')
    expect(portal.data?.['openBillingPortal']).toEqual({ url: expect.stringContaining(`${fake.url}/portal/`), effective: null })
    const invoices = (await graphql(team.owner, '{ invoices { id totalCents currency status pdfUrl } }')).data?.['invoices'] as unknown[]
    expect(invoices.length).toBeGreaterThanOrEqual(2)
    expect(invoices[0]).toMatchObject({ currency: 'eur', status: 'paid' })
    // The change is in the audit log under the GraphQL operation that made it.
    await app.frame.audit.flush()
    const records = await app.db
      .selectFrom('audit_log')
      .select('operation')
      .where('account_id', '=', team.accountId)
      .where('operation', 'like', 'graphql.%')
      .execute()
    expect(records.map((r) => r.operation)).toContain('graphql.Change')
  })

  it('refuses editors and viewers, bad input, and a change without Stripe, in GraphQL’s terms', async () => {
    const team = await makeTeam(app, 'pro')
    for (const member of [team.editor, team.viewer]) {
      const read = await graphql(member, BILLING)
      expect(read.data?.['billing']).toBeNull()
      expect(read.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'role_required' })
      const change = await graphql(member, CHANGE, { input: { plan: 'max' } })
      expect(change.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'role_required' })
    }
    const unavailable = await graphql(team.owner, CHANGE, { input: { plan: 'lite', addOns: [{ id: 'ai_sales_assistant', quantity: 1 }] } })
    expect(unavailable.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'plan_required' })
    const twice = await graphql(team.owner, CHANGE, {
      input: {
        plan: 'pro',
        addOns: [
          { id: 'extra_seat', quantity: 1 },
          { id: 'extra_seat', quantity: 2 },
        ],
      },
    })
    expect(twice.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' })
    const badPlan = await graphql(team.owner, CHANGE, { input: { plan: 'gold' } })
    expect(badPlan.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT')
    const nothing = await graphql(team.owner, 'mutation { openBillingPortal { url } }')
    expect(nothing.errors?.[0]?.extensions).toMatchObject({ reason: 'conflict' })

    const elsewhere = await makeTeam(plain.app, 'pro')
    expect((await graphql(elsewhere.owner, BILLING, {}, plain.base)).data?.['billing']).toMatchObject({ available: false, status: 'none' })
    expect((await graphql(elsewhere.owner, '{ invoices { id } }', {}, plain.base)).data?.['invoices']).toEqual([])
    const refused = await graphql(elsewhere.owner, CHANGE, { input: { plan: 'max' } }, plain.base)
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'billing_unavailable' })
  })
})

describe('billing over MCP', { timeout: 120_000 }, () => {
  it('lets the owner of a free account see the plan and get the checkout page from the agent; editors are refused', async () => {
    const team = await makeTeam(app, 'free')
    const client = await connect(base, team.owner.mcp)
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy()
      return result.structuredContent as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
    }
    const tools = (await client.listTools()).tools.map((t) => t.name)
    expect(tools).toEqual(expect.arrayContaining(['get_billing', 'list_invoices', 'change_plan', 'open_billing_portal']))
    expect(await call('get_billing')).toMatchObject({ plan: 'free', status: 'none', available: true, billing_page: `${base}/app/billing` })
    // Nothing to manage before a first payment.
    const early = await client.callTool({ name: 'open_billing_portal', arguments: {} })
    expect(early.isError).toBe(true)
    expect(textOf(early)).toMatch(/^conflict: /)

    const started = await call('change_plan', { plan: 'lite' })
    expect(started).toEqual({ url: expect.stringContaining(`${fake.url}/checkout/`), effective: 'checkout' })
    await fake.completeCheckout(sessionOf(started['url']))
    expect(await call('get_billing')).toMatchObject({ plan: 'lite', interval: 'month', status: 'active' })
    const upgraded = await call('change_plan', { plan: 'plus' })
    expect(upgraded).toEqual({ url: `${base}/app/billing`, effective: 'now' })
    expect((await call('list_invoices'))['data'].length).toBeGreaterThanOrEqual(2)
    expect((await call('open_billing_portal'))['url']).toContain(`${fake.url}/portal/`)
    const downgraded = await call('change_plan', { plan: 'lite' })
    expect(downgraded['effective']).toBe('period_end')
    expect(await call('get_billing')).toMatchObject({ plan: 'plus', scheduled_change: { plan: 'lite' } })

    // Refusals are tool errors with the registry's code.
    const refused = await client.callTool({
      name: 'change_plan',
      arguments: { plan: 'lite', add_ons: [{ id: 'ai_sales_assistant', quantity: 1 }] },
    })
    expect(textOf(refused)).toMatch(/^plan_required: /)
    const unknown = await client.callTool({ name: 'change_plan', arguments: { plan: 'gold' } })
    expect(unknown.isError).toBe(true)
    const editor = await connect(base, team.editor.mcp)
    const notOwner = await editor.callTool({ name: 'get_billing', arguments: {} })
    expect(notOwner.isError).toBe(true)
    expect(textOf(notOwner)).toMatch(/^role_required: /)
    await client.close()
    await editor.close()
  })
})
