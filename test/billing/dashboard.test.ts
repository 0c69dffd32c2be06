import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { syncCatalogue } from '../../src/domain/billing/catalogue.ts'
import { createStripe } from '../../src/domain/billing/stripe-client.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { buildTestApp } from '../helpers/app.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startFakeStripe } from '../helpers/fake-stripe.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, memberBrowser } from '../teams/helpers.ts'

// The billing page (DESIGN.md 16) as owners, editors and viewers see it, without JavaScript, with
// Stripe faked on loopback; and a free account paying for lite in Chromium, which opens its own domain.
const SECRET_KEY = 'sk_test_fake_dashboard'
const WEBHOOK_SECRET = 'whsec_ZGFzaGJvYXJkLXNlY3JldA'
const fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET })
const { app, base } = await startLiveApp({
  env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: fake.url, SITES_DOMAIN: 'sites.test' },
})
fake.state.webhookUrl = `${base}/webhooks/stripe`
await syncCatalogue(createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: fake.url })!)
const { app: plain } = await buildTestApp({ env: { SUPPORT_EMAIL: 'help@presence.test' } })
await plain.listen({ port: 0, host: '127.0.0.1' })
const plainBase = `http://127.0.0.1:${(plain.server.address() as { port: number }).port}`

describe('/app/billing', () => {
  it('shows editors and viewers the plan only, and refuses them a change', async () => {
    const team = await makeTeam(app, 'lite')
    for (const member of [team.editor, team.viewer]) {
      const browser = memberBrowser(base, member)
      const page = await browser.get('/app/billing')
      expect(page.status).toBe(200)
      expect(page.$('main').text()).toContain('Plan Lite')
      expect(page.$('main').text()).toContain('Only an owner of this account manages its plan and payments.')
      expect(page.$('form[action="/app/billing/checkout"]').length).toBe(0)
      expect(page.$('nav a[href="/app/billing"]').length).toBe(1)
      const csrf = (await browser.get('/app/tokens')).$('input[name="_csrf"]').first().attr('value') ?? ''
      const refused = await browser.post('/app/billing/checkout', { _csrf: csrf, plan: 'max' })
      expect(refused.status).toBe(403)
    }
    expect(fake.sessions.size).toBe(0)
  })

  it('keeps what the owner typed and says beside the field what the plan does not offer', async () => {
    const team = await makeTeam(app, 'free')
    const first = await fetch(`${base}/app/billing`, { headers: { cookie: team.owner.cookie } })
    const cookie = [team.owner.cookie, ...first.headers.getSetCookie().map((line) => line.split(';')[0]!)].join('; ')
    const $page = cheerio.load(await first.text())
    expect($page('h2#choose-h').text()).toBe('Choose a plan')
    expect($page('input[name="plan"][value="lite"]').attr('checked')).toBeDefined()
    const res = await fetch(`${base}/app/billing/checkout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: $page('input[name="_csrf"]').first().attr('value')!,
        plan: 'lite',
        interval: 'year',
        add_on_ai_sales_assistant: '1',
        add_on_extra_seat: '2',
      }),
      redirect: 'manual',
    })
    expect(res.status).toBe(400)
    const $ = cheerio.load(await res.text())
    expect($('#add_on_ai_sales_assistant-error').text()).toBe('AI sales assistant comes with plan Plus or above.')
    expect($('input[name="add_on_ai_sales_assistant"]').attr('aria-invalid')).toBe('true')
    expect($('input[name="plan"][value="lite"]').attr('checked')).toBeDefined()
    expect($('input[name="interval"][value="year"]').attr('checked')).toBeDefined()
    expect($('#add_on_extra_seat').attr('value')).toBe('2')
    expect(fake.sessions.size).toBe(0)
  })

  it('without Stripe shows the plans and how to reach the operator', async () => {
    const team = await makeTeam(plain, 'free')
    const page = await memberBrowser(plainBase, team.owner).get('/app/billing')
    expect(page.status).toBe(200)
    expect(page.$('main').text()).toContain('Paying online is not set up on this service.')
    expect(page.$('main a[href="mailto:help@presence.test"]').length).toBe(1)
    expect(page.$('table').text()).toContain('Lite')
    expect(page.$('form[action="/app/billing/checkout"]').length).toBe(0)
  })
})

describe.skipIf(!haveBrowser || onPostgres)('paying for lite in Chromium', { timeout: 120_000 }, async () => {
  const browser = await launchBrowser()
  const { check: accessible, findings } = await accessibilityChecker(browser, base)

  it('free → billing → Checkout → lite active → the own-domain form takes a domain; a failed payment shows the banner', async () => {
    const team = await makeTeam(app, 'free')
    const site = await createAccountSite(app.db, team.accountId, { name: 'Harbour Bakery' })
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false })
    const [name, value] = team.owner.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()

    // On free, an own domain is refused with the way to the upgrade.
    await page.goto(`${base}/app/sites/${site.id}/domains`)
    await page.getByLabel('Add a domain').fill('www.harbour-bakery.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    expect(await page.locator('.problems').textContent()).toMatch(/plan Lite/)
    await page.getByRole('link', { name: 'Change your plan' }).click()
    expect(page.url()).toBe(`${base}/app/billing`)
    await accessible('billing on free', page)
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width)

    await page.getByRole('radio', { name: /Lite: €9 a month/ }).check()
    await page.getByRole('radio', { name: /Yearly/ }).check()
    await page.getByRole('spinbutton', { name: /Extra domain/ }).fill('1')
    await page.getByRole('button', { name: 'Continue to payment' }).click()
    expect(page.url()).toMatch(new RegExp(`^${fake.url}/checkout/cs_test_`))
    expect(await page.locator('ul').textContent()).toContain('86.40 EUR / year')
    await page.getByRole('button', { name: 'Pay' }).click()

    await page.waitForURL(new RegExp(`^${base}/app/billing\\?done=checkout`))
    expect(await page.locator('.notice').first().textContent()).toContain('your payment went through')
    expect(await page.locator('#current-h + p').textContent()).toContain('Plan Lite, billed yearly: paid and active.')
    expect(await page.locator('main').textContent()).toContain('Extra domain ×1')
    expect(await page.getByRole('region', { name: 'Your invoices' }).textContent()).toContain('FAKE-')
    await accessible('billing on lite', page)

    await page.goto(`${base}/app/sites/${site.id}/domains`)
    await page.getByLabel('Add a domain').fill('www.harbour-bakery.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    expect(await page.locator('.notice').textContent()).toContain('publish its TXT record')

    // A renewal fails: the plan stays, every page says so.
    const subscription = fake.subscriptionOfCustomer([...fake.customers.keys()].at(-1)!)!
    await fake.failPayment(subscription['id'])
    await page.goto(`${base}/app`)
    expect(await page.locator('main > .error[role="alert"]').first().textContent()).toContain('did not go through')
    await page.getByRole('link', { name: 'update the card on the billing page' }).click()
    await page.getByRole('button', { name: 'Change the card or billing address' }).click()
    expect(page.url()).toBe(`${fake.url}/portal/${subscription['customer']}`)
    expect(findings).toEqual([])
    await context.close()
  })

  it('the landing page links each paid plan to its upgrade', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${base}/`)
    expect(await page.getByRole('link', { name: 'Choose Lite plan' }).getAttribute('href')).toBe('/app/billing?plan=lite')
    await context.close()
  })
})
