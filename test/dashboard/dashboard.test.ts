import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { insertActiveDomain } from '../../src/domain/sites/domains.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { queueTestDelivery } from '../../src/domain/webhooks/queue-delivery.ts'
import { readOutbox } from '../../src/infra/mailer.ts'
import { csvField } from '../../src/dashboard/csv.ts'
import { findOrCreateUser, loadEmailHasher } from '../../src/identity/stores/users.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { seriousFindings } from '../helpers/accessibility.ts'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { formToken, post, signedIn } from './helpers.ts'

describe('dashboard over HTTP', async () => {
  const { app } = await buildTestApp()
  const alice = await signedIn(app, 'alice@example.com')
  const bob = await signedIn(app, 'bob@example.com')
  const aliceSite = await createAccountSite(app.db, alice.user.accountId, {
    name: 'Alice <b>Bakery</b>',
    assistant: { enabled: true, lead: true },
  })

  it('sends a person who is not signed in to the sign-in page and back', async () => {
    const res = await app.inject({ method: 'GET', url: '/app/tokens' })
    expect(res.statusCode).toBe(303)
    expect(res.headers['location']).toBe('/signin?return_to=%2Fapp%2Ftokens')
    const forged = await app.inject({ method: 'GET', url: '/app', headers: { cookie: 'wps_session=not-a-session' } })
    expect(forged.statusCode).toBe(303)
  })

  it('renders every section, escaping user content', async () => {
    for (const url of [
      '/app',
      '/app/sites',
      `/app/sites/${aliceSite.id}`,
      '/app/conversations',
      '/app/leads',
      '/app/tokens',
      '/app/webhooks',
      '/app/audit-log',
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: { cookie: alice.cookie } })
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.body).not.toContain('<b>Bakery</b>')
    }
    const sites = await app.inject({ method: 'GET', url: '/app/sites', headers: { cookie: alice.cookie } })
    expect(sites.body).toContain('Alice &lt;b&gt;Bakery&lt;/b&gt;')
  })

  it('shows another account nothing of Alice: her ids answer 404', async () => {
    const list = await app.inject({ method: 'GET', url: '/app/sites', headers: { cookie: bob.cookie } })
    expect(list.body).not.toContain(aliceSite.id)
    const foreign = await app.inject({ method: 'GET', url: `/app/sites/${aliceSite.id}`, headers: { cookie: bob.cookie } })
    expect(foreign.statusCode).toBe(404)
    const { cookie, token } = await formToken(app, bob.cookie, '/app/tokens')
    const rebuild = await post(app, `/app/sites/${aliceSite.id}/rebuild`, cookie, { _csrf: token })
    expect(rebuild.statusCode).toBe(404)
  })

  it('refuses a form without its CSRF token', async () => {
    const res = await post(app, '/app/tokens', alice.cookie, { name: 'ci', scopes: 'read:sites' })
    expect(res.statusCode).toBe(403)
    expect(res.body).toContain('The form was open too long')
    const list = await app.inject({ method: 'GET', url: '/app/tokens', headers: { cookie: alice.cookie } })
    expect(list.body).toContain('No tokens yet.')
  })

  it('creates a token with scopes, shows its secret once, rotates and revokes it, and records each in the audit log', async () => {
    const { cookie, token } = await formToken(app, alice.cookie, '/app/tokens')
    const created = await app.inject({
      method: 'POST',
      url: '/app/tokens',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=deploy&scopes=read%3Asites&scopes=write%3Apages&expires_in_days=30&_csrf=' + encodeURIComponent(token),
    })
    expect(created.statusCode, created.body).toBe(200)
    const secret = /<output class="secret" id="secret">([^<]+)<\/output>/.exec(created.body)?.[1]
    expect(secret).toMatch(/^wps_tok_/)
    const id = /\/app\/tokens\/(tok_[A-Za-z0-9_-]+)\/rotate/.exec(created.body)?.[1]
    const page = await app.inject({ method: 'GET', url: '/app/tokens', headers: { cookie } })
    expect(page.body).not.toContain(secret)
    expect(page.body).toContain('read:sites, write:pages')

    const rotated = await post(app, `/app/tokens/${id}/rotate`, cookie, { _csrf: token })
    const second = /<output class="secret" id="secret">([^<]+)<\/output>/.exec(rotated.body)?.[1]
    expect(second).toMatch(/^wps_tok_/)
    expect(second).not.toBe(secret)

    const revoked = await post(app, `/app/tokens/${id}/revoke`, cookie, { _csrf: token })
    expect(revoked.statusCode).toBe(303)
    const v1 = await app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${second}` } })
    expect(v1.statusCode).toBe(401)

    const audit = await app.inject({ method: 'GET', url: '/app/audit-log', headers: { cookie } })
    for (const op of ['dashboard.tokens.create', 'dashboard.tokens.rotate', 'dashboard.tokens.revoke']) expect(audit.body).toContain(op)
    const again = await post(app, `/app/tokens/${id}/revoke`, cookie, { _csrf: token })
    expect(again.statusCode).toBe(404)
  })

  it('exports leads as CSV with formula injection guarded', async () => {
    await insertLead(app.db, app.keyring, {
      siteId: aliceSite.id,
      sessionId: null,
      email: 'lead@example.com',
      name: '=HYPERLINK("http://evil")',
      note: 'line one\nline "two", three',
      consent: { version: '2026-07-24.1', digest: 'a'.repeat(64), locale: 'en', acceptedAt: new Date() },
      source: 'assistant',
    })
    const res = await app.inject({ method: 'GET', url: `/app/leads.csv?site_id=${aliceSite.id}`, headers: { cookie: alice.cookie } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.body).toContain(`lead@example.com,"'=HYPERLINK(""http://evil"")","line one\nline ""two"", three"`)
    const bobs = await app.inject({ method: 'GET', url: '/app/leads.csv', headers: { cookie: bob.cookie } })
    expect(bobs.body).not.toContain('lead@example.com')
    expect(csvField('-2+3')).toBe("'-2+3")
    expect(csvField('plain')).toBe('plain')
  })

  it('shows the hourly quota used as a bar', async () => {
    await updateAccount(app.db, alice.user.accountId, { plan: 'pro' })
    const { secret } = await createApiToken(app.db, { accountId: alice.user.accountId, name: 'reader', scopes: ['read:sites'] })
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/v1/sites', headers: { authorization: `Bearer ${secret}` } })
    const res = await app.inject({ method: 'GET', url: '/app', headers: { cookie: alice.cookie } })
    expect(res.body).toContain('3 of 1000 API requests used')
    expect(res.body).toMatch(/<meter id="quota" min="0" max="1000"[^>]* value="3">/)
  })
})

// The browser flows run once, on the embedded database; the HTTP tests above run on both.
describe.skipIf(!haveBrowser || onPostgres)('dashboard in Chromium', async () => {
  let receiverHealthy = false
  const received: string[] = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      received.push(body)
      res.writeHead(receiverHealthy ? 200 : 400).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launchBrowser()
  const context = await browser.newContext({ viewport: DESKTOP })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
  const page = await context.newPage()
  const email = 'owner@example.com'
  const owner = async () => {
    const hash = await loadEmailHasher(app.db, app.keyring)
    return findOrCreateUser(app.db, app.keyring, hash(email), email)
  }
  const screenshots = async (name: string) => {
    await page.setViewportSize(DESKTOP)
    await page.screenshot({ path: screenshotPath(`${name}-desktop`), fullPage: true })
    await page.setViewportSize(PHONE)
    await page.screenshot({ path: screenshotPath(`${name}-phone`), fullPage: true })
    await page.setViewportSize(DESKTOP)
  }

  it('signs in with the code from the mail outbox', async () => {
    await page.goto(`${origin}/app`)
    await page.locator('#email').fill(email)
    await page.getByRole('button', { name: /code/i }).click()
    await page.waitForURL(/\/signin\/code/)
    const [mail] = await readOutbox(app.db, app.keyring, email)
    const code = /(\d{6})/.exec(mail!.text)![1]!
    await page.locator('#code').fill(code)
    await page.locator('#code').press('Enter')
    await page.waitForURL(`${origin}/app`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview')
  })

  it('creates a token and rotates it in one click, the secret shown once with a copy button', async () => {
    await page.goto(`${origin}/app/tokens`)
    await page.getByLabel('Name').fill('ci deploy')
    await page.getByLabel('read:sites').check()
    await page.getByRole('button', { name: 'Create token' }).click()
    const first = await page.locator('#secret').textContent()
    expect(first).toMatch(/^wps_tok_/)
    await page.getByRole('button', { name: 'Copy' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1)
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first)
    expect(await seriousFindings(page)).toEqual([])
    await screenshots('dashboard-token-secret')
    await page.getByRole('button', { name: 'Rotate ci deploy' }).click()
    const second = await page.locator('#secret').textContent()
    expect(second).toMatch(/^wps_tok_/)
    expect(second).not.toBe(first)
  })

  it('keeps the tokens table usable at phone width: ids on one line, every action on screen', async () => {
    await page.goto(`${origin}/app/tokens`)
    await page.setViewportSize(PHONE)
    const id = page.locator('td[data-label="Id"] code').first()
    // One line of 16px text is about 19px high; the id used to wrap one character per line.
    expect((await id.boundingBox())!.height).toBeLessThan(30)
    for (const name of ['Rotate ci deploy', 'Revoke ci deploy']) {
      const box = (await page.getByRole('button', { name }).boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width, name).toBeLessThanOrEqual(PHONE.width)
    }
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width)
    await page.setViewportSize(DESKTOP)
  })

  it('adds a webhook endpoint, shows a dead letter and replays it to a healthy receiver', async () => {
    await updateAccount(app.db, (await owner()).accountId, { plan: 'pro' })
    await page.goto(`${origin}/app/webhooks`)
    await page.getByLabel('URL').fill(receiverUrl)
    await page.getByLabel('Description (optional)').fill('Order system')
    await page.getByLabel('site.published').check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    expect(await page.locator('#secret').textContent()).toMatch(/^whsec_/)
    expect(await page.locator('.notice').textContent()).toContain('The endpoint was added.')
    expect(await seriousFindings(page)).toEqual([])
    await screenshots('dashboard-webhook-secret')
    await page.getByRole('link', { name: 'Go to the endpoint' }).click()
    await page.getByRole('button', { name: 'Send a test event' }).click()
    // A 400 answer is final: the delivery becomes a dead letter at once.
    await expect
      .poll(async () => (await page.goto(`${origin}/app/webhooks`), await page.getByRole('button', { name: /^Replay / }).count()), {
        timeout: 20_000,
      })
      .toBe(1)
    expect(received.length).toBe(1)
    receiverHealthy = true
    await page.getByRole('button', { name: /^Replay / }).click()
    await expect.poll(() => page.locator('.notice').textContent()).toContain('queued again')
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2)
    expect(received[1]).toBe(received[0])
  })

  it('takes over a handoff and replies; the visitor sees the reply', async () => {
    await withAssistantAddOn(app.db, (await owner()).accountId)
    const site = await createAccountSite(app.db, (await owner()).accountId, {
      name: 'Owner shop',
      assistant: { enabled: true, handoff: true, lead: true },
    })
    await createPage(app.db, site, { path: '/', title: 'Home' })
    await insertActiveDomain(app.db, site.id, 'owner-shop.example')
    const boot = await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: 'https://owner-shop.example/' } })
    expect(boot.statusCode, boot.body).toBe(200)
    const { session_id, session_token } = boot.json()
    const chat = await app.inject({
      method: 'POST',
      url: '/api/agent/chat',
      payload: { session_id, session_token, turn_id: 'turn_handoff_1', message: 'Can I talk to a real person?' },
    })
    expect(chat.json().handoff.state).toBe('requested')

    await page.goto(`${origin}/app/conversations`)
    await page.getByRole('link', { name: session_id }).click()
    await page.getByRole('button', { name: 'Take over' }).click()
    await page.getByLabel('Your reply').fill('Hi, Olga here. How can I help?')
    await page.getByRole('button', { name: 'Send reply' }).click()
    await expect.poll(() => page.locator('.notice').textContent()).toContain('Your reply was posted.')
    const rehydrated = await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { session_id, session_token } })
    expect(rehydrated.json().messages.at(-1)).toMatchObject({ role: 'operator', text: 'Hi, Olga here. How can I help?' })
  })

  it('rebuilds a site from its page and shows the build', async () => {
    await page.goto(`${origin}/app/sites`)
    await page.getByRole('link', { name: 'Owner shop', exact: true }).click()
    await page.getByRole('link', { name: 'Domains', exact: true }).click()
    await page.getByLabel('Add a domain').fill('www.owner-shop.example')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await expect.poll(() => page.locator('.notice').textContent()).toContain('publish its TXT record')
    await page.getByRole('link', { name: 'Owner shop' }).click()
    await page.getByRole('button', { name: 'Publish now' }).click()
    await expect.poll(() => page.locator('.notice').textContent()).toContain('A build was queued.')
    await expect
      .poll(async () => (await page.reload(), await page.locator('td[data-label="Live"]').first().textContent()), { timeout: 20_000 })
      .toBe('live')
  })

  it('has no serious accessibility violation on any page, list or detail, at phone and desktop widths', { timeout: 180_000 }, async () => {
    const { accountId } = await owner()
    const [site] = await app.db.selectFrom('sites').select('id').where('account_id', '=', accountId).execute()
    const [endpoint] = await app.db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', accountId).execute()
    const [conversation] = await app.db.selectFrom('agent_sessions').select('id').where('site_id', '=', site!.id).execute()
    const pages: Array<[string, string]> = [
      ['/app', 'overview'],
      ['/app/sites', 'sites'],
      ['/app/conversations', 'conversations'],
      ['/app/leads', 'leads'],
      ['/app/tokens', 'tokens'],
      ['/app/webhooks', 'webhooks'],
      ['/app/audit-log', 'audit-log'],
      [`/app/sites/${site!.id}`, 'site'],
      [`/app/conversations/${conversation!.id}`, 'conversation'],
      [`/app/webhooks/${endpoint!.id}`, 'webhook-endpoint'],
    ]
    // axe checks each page once (the markup is the same at every width); screenshots at both widths.
    for (const [path, name] of pages) {
      await page.setViewportSize(DESKTOP)
      await page.goto(`${origin}${path}`)
      expect(await seriousFindings(page), path).toEqual([])
      await page.screenshot({ path: screenshotPath(`dashboard-${name}-desktop`), fullPage: true })
      await page.setViewportSize(PHONE)
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${path} is wider than a phone`).toBeLessThanOrEqual(
        PHONE.width,
      )
      await page.screenshot({ path: screenshotPath(`dashboard-${name}-phone`), fullPage: true })
    }
    await page.setViewportSize(DESKTOP)
  })

  it('signs out in one click', async () => {
    await page.goto(`${origin}/app/tokens`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed out')
    await page.goto(`${origin}/app`)
    expect(new URL(page.url()).pathname).toBe('/signin')
  })
})
