import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { postOperatorMessage, takeHandoff } from '../../src/domain/leads/conversations.ts'
import { listLeads } from '../../src/domain/leads/leads.ts'
import { PLATFORM_SITE_ID } from '../../src/domain/sites/sites.ts'
import { seriousFindings } from '../helpers/accessibility.ts'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'

/**
 * A customer's page on another origin (loopback, another port) embedding the widget with one tag;
 * every path serves it, in the language of its `lang` query parameter.
 */
async function serveFixturePage(scriptSrc: string): Promise<{ origin: string; server: Server }> {
  const page = (
    lang: string,
  ) => `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Fixture shop</title></head>
<body><header><a href="/">Fixture shop</a></header><main><h1>Handmade chairs</h1><p>Oak and walnut, made to order.</p><button type="button" id="page-button">A page button</button></main>
<script src="${scriptSrc}" data-site="localhost" defer></script></body></html>`
  const server = createServer((req, res) => {
    const lang = new URL(req.url ?? '/', 'http://fixture').searchParams.get('lang') ?? 'en'
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(/^[a-z]{2}$/.test(lang) ? lang : 'en'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server }
}

describe('GET /widget.js', async () => {
  const { app } = await buildTestApp()

  it('is at most 30 KB gzipped, served cross-origin with an ETag and 304', async () => {
    const res = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'accept-encoding': 'gzip' } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin')
    expect(res.rawPayload.length).toBeLessThanOrEqual(30 * 1024)
    expect(gunzipSync(res.rawPayload).toString('utf8')).toContain('attachShadow')
    const again = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': String(res.headers['etag']) } })
    expect(again.statusCode).toBe(304)
    const plain = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body).toContain('attachShadow')
  })
})

// The browser drives the widget once, on the embedded database; the script route runs on both.
describe.skipIf(!haveBrowser || onPostgres)('the widget in Chromium on a page of another origin', async () => {
  const { app } = await buildTestApp()
  await app.listen({ port: 0, host: '127.0.0.1' })
  const appOrigin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const fixture = await serveFixturePage(`${appOrigin}/widget.js`)
  const browser = await launchBrowser()

  interface Watched {
    page: Page
    /** The interaction events the widget sent, in order (their bodies). */
    events: Array<{ type: string; session_id: string; payload?: Record<string, unknown> }>
    /** Every bootstrap answer the widget received. */
    bootstraps: Array<Record<string, any>>
  }
  const chatTurns: Array<{ turn_id: string; message: string; session_id: string }> = []
  async function openPage(viewport = DESKTOP, lang = 'en'): Promise<Watched> {
    const context = await browser.newContext({ viewport, reducedMotion: 'reduce' })
    const page = await context.newPage()
    const watched: Watched = { page, events: [], bootstraps: [] }
    page.on('request', (request) => {
      if (request.method() !== 'POST') return
      if (request.url().endsWith('/api/agent/chat')) chatTurns.push(JSON.parse(request.postData() ?? '{}'))
      if (request.url().endsWith('/api/agent/event')) watched.events.push(JSON.parse(request.postData() ?? '{}'))
    })
    page.on('response', (response) => {
      if (response.url().endsWith('/api/agent/bootstrap') && response.request().method() === 'POST' && response.status() === 200) {
        response.json().then(
          (body) => watched.bootstraps.push(body),
          () => {},
        ) // the page may be gone by then
      }
    })
    await page.goto(`${fixture.origin}/?lang=${lang}`)
    return watched
  }
  const types = (w: Watched) => w.events.map((e) => e.type)
  /** The first bootstrap answer, once it has arrived (the panel opens before it does). */
  const firstBootstrap = async (w: Watched) => {
    await expect.poll(() => w.bootstraps.length).toBeGreaterThan(0)
    return w.bootstraps[0]!
  }
  const launcher = (page: Page, name = 'Chat with us') => page.getByRole('button', { name })
  const dialog = (page: Page) => page.getByRole('dialog')
  /** The events the service stored for a session, by type. */
  const storedEvents = async (sessionId: string) =>
    Object.fromEntries(
      (await app.db.selectFrom('agent_events').select(['type', 'count']).where('session_id', '=', sessionId).execute()).map((r) => [
        r.type,
        Number(r.count),
      ]),
    )
  const sessionOf = (page: Page) => page.evaluate<string>(`JSON.parse(localStorage.getItem('wps-assistant:localhost') ?? '{}').session_id`)

  async function screenshots(page: Page, name: string) {
    const size = page.viewportSize()
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport)
      await page.screenshot({ path: screenshotPath(`widget-${name}-${width}`) })
    }
    if (size) await page.setViewportSize(size)
  }

  it('opens, greets, answers a suggestion in the live region, and has no serious accessibility violation', async () => {
    const w = await openPage()
    const { page } = w
    await launcher(page).click()
    await expect.poll(() => dialog(page).isVisible()).toBe(true)
    const log = page.getByRole('log')
    expect(await log.getAttribute('aria-live')).toBe('polite')
    await expect.poll(() => log.textContent()).toMatch(/assistant/i)
    await expect.poll(() => types(w)).toEqual(['assistant_opened'])
    // What the live region receives is what a screen reader announces.
    await page.evaluate(`(() => {
      const log = document.querySelector('[data-wps-assistant]').shadowRoot.querySelector('[role=log]')
      window.__announced = []
      new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes) window.__announced.push(n.textContent) }).observe(log, { childList: true })
    })()`)
    const suggestion = page.locator('[data-wps-assistant] >> .chip').first()
    const prompt = await suggestion.textContent()
    expect(prompt).toBeTruthy()
    await suggestion.click()
    await expect.poll(() => log.locator('.msg.assistant').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    const reply = await log.locator('.msg.assistant').last().textContent()
    const announced = await page.evaluate<string[]>('window.__announced')
    const visitorSaid = await log.locator('.msg.visitor').last().textContent()
    expect(announced).toContain(visitorSaid)
    expect(announced).toContain(reply)
    await expect.poll(() => types(w)).toContain('suggestion_clicked')
    expect(await seriousFindings(page)).toEqual([])
    await screenshots(page, 'open')

    // The visitor spoke, so leaving is "closed", not "dismissed"; the service stored each event.
    await page.getByRole('button', { name: 'Close chat' }).click()
    await expect.poll(() => types(w)).toEqual(['assistant_opened', 'suggestion_clicked', 'assistant_closed'])
    const sessionId = await sessionOf(page)
    expect(new Set(w.events.map((e) => e.session_id))).toEqual(new Set([sessionId]))
    await expect.poll(() => storedEvents(sessionId)).toEqual({ assistant_opened: 1, suggestion_clicked: 1, assistant_closed: 1 })
    await page.context().close()
  })

  it('sends action_clicked when the visitor follows an action link, even as the page unloads', async () => {
    const w = await openPage()
    const { page } = w
    await launcher(page).click()
    const input = page.getByRole('textbox', { name: 'Your message' })
    await input.fill('I want to buy the pro plan')
    await input.press('Enter')
    const link = page.getByRole('log').getByRole('link', { name: '/en/pricing' })
    await expect.poll(() => link.count(), { timeout: 10_000 }).toBe(1)
    const sessionId = await sessionOf(page)
    await Promise.all([page.waitForURL(`${fixture.origin}/en/pricing`), link.click()])
    await expect.poll(() => types(w)).toContain('action_clicked')
    await expect.poll(() => storedEvents(sessionId)).toMatchObject({ action_clicked: 1 })
    // The next page restores the conversation once idle and reports that the assistant surfaced.
    await expect.poll(() => types(w)).toContain('assistant_surfaced')
    await page.context().close()
  })

  it('submits a lead with the consent text, privacy link and the digest bootstrap handed out', async () => {
    const w = await openPage()
    const { page } = w
    await launcher(page).click()
    await page.getByRole('button', { name: 'Leave your contact details' }).click()
    const form = page.getByRole('form', { name: 'Leave your contact details' })
    await expect.poll(() => form.isVisible()).toBe(true)
    expect(await form.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe('/en/privacy')
    await form.getByLabel('Email').fill('visitor@example.com')
    await form.getByLabel('Name (optional)').fill('Vera Visitor')
    await form.getByLabel(/I agree that my details are stored/).check()
    await screenshots(page, 'lead-form')
    await form.getByRole('button', { name: 'Send my details' }).click()
    await expect.poll(() => page.getByRole('log').textContent()).toContain('Thank you, we will get back to you.')
    const handedOut = (await firstBootstrap(w)).lead_consent
    expect(handedOut.digest).toMatch(/^[0-9a-f]{64}$/)
    const lead = w.events.find((e) => e.type === 'lead_submitted')!
    expect(lead.payload).toMatchObject({
      email: 'visitor@example.com',
      consent: true,
      consent_version: handedOut.version,
      consent_digest: handedOut.digest,
    })
    const leads = await listLeads(app.db, app.keyring, PLATFORM_SITE_ID)
    expect(leads.find((l) => l.email === 'visitor@example.com')?.consent.digest).toBe(handedOut.digest)
    await page.context().close()
  })

  it('asks for a person, acknowledges the handoff and shows the operator reply; the conversation survives a reload', async () => {
    const w = await openPage(PHONE)
    const { page } = w
    await launcher(page).click()
    const input = page.getByRole('textbox', { name: 'Your message' })
    await input.fill('Can I talk to a real person please?')
    await input.press('Enter')
    const log = page.getByRole('log')
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('A person from the team has been asked to join.')
    const sessionId = await sessionOf(page)
    expect(sessionId).toMatch(/^ag_/)
    await takeHandoff(app.db, sessionId)
    await postOperatorMessage(app.db, app.keyring, sessionId, 'Hello, this is Olga from the team.')
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('Hello, this is Olga from the team.')
    expect(await log.textContent()).toContain('A person from the team is in this chat.')
    await expect.poll(() => types(w)).toContain('handoff_ack')
    await expect.poll(() => storedEvents(sessionId)).toMatchObject({ handoff_ack: 1 })
    await screenshots(page, 'handoff')

    await page.reload()
    await launcher(page).click()
    await expect.poll(() => page.getByRole('log').textContent()).toContain('Hello, this is Olga from the team.')
    await page.context().close()
  })

  it('speaks German on a German page and French on a French one', async () => {
    const de = await openPage(DESKTOP, 'de')
    await launcher(de.page, 'Mit uns chatten').click()
    await expect.poll(() => dialog(de.page).isVisible()).toBe(true)
    const deSession = await firstBootstrap(de)
    expect(deSession.locale).toBe('de')
    await expect.poll(() => de.page.getByRole('log').textContent()).toContain(deSession.opener.text)
    expect(await de.page.getByRole('textbox', { name: 'Ihre Nachricht' }).count()).toBe(1)
    expect(await de.page.getByRole('button', { name: 'Senden' }).count()).toBe(1)
    expect(await de.page.getByRole('button', { name: 'Unterhaltung löschen' }).count()).toBe(1)
    await de.page.getByRole('button', { name: 'Kontaktdaten hinterlassen' }).click()
    const form = de.page.getByRole('form', { name: 'Kontaktdaten hinterlassen' })
    expect(await form.getByRole('link', { name: 'Datenschutzerklärung' }).getAttribute('href')).toBe('/de/privacy')
    expect(await form.getByLabel('E-Mail').count()).toBe(1)
    expect(await form.getByRole('button', { name: 'Angaben senden' }).count()).toBe(1)
    await de.page.keyboard.press('Escape')
    expect(await launcher(de.page, 'Mit uns chatten').isVisible()).toBe(true)
    await de.page.context().close()

    const fr = await openPage(DESKTOP, 'fr')
    await launcher(fr.page, 'Discuter avec nous').click()
    await expect.poll(() => dialog(fr.page).isVisible()).toBe(true)
    const frSession = await firstBootstrap(fr)
    expect(frSession.locale).toBe('fr')
    expect(await fr.page.getByRole('textbox', { name: 'Votre message' }).count()).toBe(1)
    expect(await fr.page.getByRole('button', { name: 'Fermer la discussion' }).count()).toBe(1)
    await expect.poll(() => fr.page.getByRole('log').textContent()).toContain(frSession.opener.text)
    await fr.page.context().close()
  })

  it('retries a turn lost on the network with the same turn_id', async () => {
    const { page } = await openPage()
    let dropped = false
    await page.route('**/api/agent/chat', (route) => {
      if (!dropped) {
        dropped = true
        return route.abort('connectionreset')
      }
      return route.continue()
    })
    await launcher(page).click()
    const input = page.getByRole('textbox', { name: 'Your message' })
    await input.fill('What does the pro plan cost?')
    await input.press('Enter')
    await page.getByRole('button', { name: 'Retry' }).click()
    await expect.poll(() => page.getByRole('log').locator('.msg.assistant').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    const ours = chatTurns.filter((t) => t.message === 'What does the pro plan cost?')
    expect(ours.length).toBe(2)
    expect(ours[0]!.turn_id).toBe(ours[1]!.turn_id)
    await page.context().close()
  })

  it('works with the keyboard alone: focus is trapped, Escape closes, returns focus and counts as dismissed', async () => {
    const w = await openPage()
    const { page } = w
    await page.locator('#page-button').focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    const focusedName = () =>
      page.evaluate<string>(`(() => {
      const active = document.querySelector('[data-wps-assistant]')?.shadowRoot?.activeElement ?? document.activeElement
      return active?.getAttribute('aria-label') ?? active?.textContent ?? ''
    })()`)
    // Tab order: the page's own controls, then the launcher, which opens with Enter.
    for (let i = 0; i < 5 && (await focusedName()) !== 'Chat with us'; i++) await page.keyboard.press('Tab')
    expect(await focusedName()).toBe('Chat with us')
    await page.keyboard.press('Enter')
    await expect.poll(() => dialog(page).isVisible()).toBe(true)
    await expect
      .poll(() => page.evaluate<string | undefined>(`document.querySelector('[data-wps-assistant]')?.shadowRoot?.activeElement?.id`))
      .toBe('wps-input')
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab')
      const inside = await page.evaluate<boolean>(`document.activeElement?.hasAttribute('data-wps-assistant') ?? false`)
      expect(inside).toBe(true)
    }
    await page.keyboard.press('Escape')
    await expect.poll(() => dialog(page).isVisible()).toBe(false)
    expect(await focusedName()).toBe('Chat with us')
    await expect.poll(() => types(w)).toEqual(['assistant_opened', 'assistant_dismissed'])
    await page.context().close()
  })

  it('erases the conversation on request and goes on with a fresh one', async () => {
    const { page } = await openPage()
    await launcher(page).click()
    await expect.poll(() => page.evaluate(() => localStorage.getItem('wps-assistant:localhost'))).not.toBeNull()
    const before = await sessionOf(page)
    const input = page.getByRole('textbox', { name: 'Your message' })
    await input.fill('Do you offer custom domains?')
    await input.press('Enter')
    await expect.poll(() => page.getByRole('log').locator('.msg.assistant').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    await page.getByRole('button', { name: 'Erase conversation' }).click()
    const log = page.getByRole('log')
    await expect.poll(() => log.textContent()).toContain('The conversation was erased.')
    expect(await log.textContent()).not.toContain('Do you offer custom domains?')
    expect(await dialog(page).isVisible()).toBe(true)
    const after = await sessionOf(page)
    expect(after).toMatch(/^ag_/)
    expect(after).not.toBe(before)
    expect(await app.db.selectFrom('agent_sessions').select('id').where('id', '=', before).executeTakeFirst()).toBeUndefined()
    await input.fill('What does the pro plan cost?')
    await input.press('Enter')
    await expect.poll(() => log.locator('.msg.assistant').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    expect(chatTurns.at(-1)).toMatchObject({ session_id: after, message: 'What does the pro plan cost?' })
    await page.context().close()
  })
})
