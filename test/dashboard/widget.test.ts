import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { postOperatorMessage, takeHandoff } from '../../src/domain/conversations.ts'
import { listLeads } from '../../src/domain/leads.ts'
import { PLATFORM_SITE_ID } from '../../src/domain/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'

/** A customer's page on another origin (loopback, another port) embedding the widget with one tag. */
async function serveFixturePage(scriptSrc: string, lang = 'en'): Promise<{ origin: string; server: Server }> {
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Fixture shop</title></head>
<body><header><a href="/">Fixture shop</a></header><main><h1>Handmade chairs</h1><p>Oak and walnut, made to order.</p><button type="button" id="page-button">A page button</button></main>
<script src="${scriptSrc}" data-site="localhost" defer></script></body></html>`
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html))
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

  const chatTurns: Array<{ turn_id: string; message: string }> = []
  async function openPage(viewport = DESKTOP): Promise<Page> {
    const context = await browser.newContext({ viewport, reducedMotion: 'reduce' })
    const page = await context.newPage()
    page.on('request', (request) => {
      if (request.url().endsWith('/api/agent/chat')) chatTurns.push(JSON.parse(request.postData() ?? '{}'))
    })
    await page.goto(fixture.origin)
    return page
  }
  const launcher = (page: Page) => page.getByRole('button', { name: 'Chat with us' })
  const dialog = (page: Page) => page.getByRole('dialog')

  async function seriousViolations(page: Page) {
    const result = await new AxeBuilder({ page }).analyze()
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)
  }

  it('opens, greets, answers a suggestion, and has no serious accessibility violation', async () => {
    const page = await openPage()
    await launcher(page).click()
    await expect.poll(() => dialog(page).isVisible()).toBe(true)
    const log = page.getByRole('log')
    await expect.poll(() => log.textContent()).toMatch(/assistant/i)
    const suggestion = page.locator('[data-wps-assistant] >> .chip').first()
    const prompt = await suggestion.textContent()
    expect(prompt).toBeTruthy()
    await suggestion.click()
    await expect.poll(() => log.locator('.msg.assistant').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: screenshotPath('widget-open-desktop') })
    await page.context().close()
  })

  it('submits a lead with the consent text, privacy link and digest', async () => {
    const page = await openPage()
    await launcher(page).click()
    await page.getByRole('button', { name: 'Leave your contact details' }).click()
    const form = page.getByRole('form', { name: 'Leave your contact details' })
    await expect.poll(() => form.isVisible()).toBe(true)
    expect(await form.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe('/en/privacy')
    await form.getByLabel('Email').fill('visitor@example.com')
    await form.getByLabel('Name (optional)').fill('Vera Visitor')
    await form.getByLabel(/I agree that my details are stored/).check()
    await form.getByRole('button', { name: 'Send my details' }).click()
    await expect.poll(() => page.getByRole('log').textContent()).toContain('Thank you, we will get back to you.')
    const leads = await listLeads(app.db, app.keyring, PLATFORM_SITE_ID)
    expect(leads.map((l) => l.email)).toContain('visitor@example.com')
    await page.context().close()
  })

  it('asks for a person and shows the operator reply; the conversation survives a reload', async () => {
    const page = await openPage(PHONE)
    await launcher(page).click()
    const input = page.getByRole('textbox', { name: 'Your message' })
    await input.fill('Can I talk to a real person please?')
    await input.press('Enter')
    const log = page.getByRole('log')
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain('A person from the team has been asked to join.')
    const sessionId = await page.evaluate(() => JSON.parse(localStorage.getItem('wps-assistant:localhost') ?? '{}').session_id as string)
    expect(sessionId).toMatch(/^ag_/)
    await takeHandoff(app.db, sessionId)
    await postOperatorMessage(app.db, app.keyring, sessionId, 'Hello, this is Olga from the team.')
    await expect.poll(() => log.textContent(), { timeout: 15_000 }).toContain('Hello, this is Olga from the team.')
    await page.screenshot({ path: screenshotPath('widget-handoff-phone') })

    await page.reload()
    await launcher(page).click()
    await expect.poll(() => page.getByRole('log').textContent()).toContain('Hello, this is Olga from the team.')
    await page.context().close()
  })

  it('retries a turn lost on the network with the same turn_id', async () => {
    const page = await openPage()
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

  it('works with the keyboard alone: focus is trapped, Escape closes and returns focus', async () => {
    const page = await openPage()
    await page.locator('#page-button').focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    const focusedName = () => page.evaluate<string>(`(() => {
      const active = document.querySelector('[data-wps-assistant]')?.shadowRoot?.activeElement ?? document.activeElement
      return active?.getAttribute('aria-label') ?? active?.textContent ?? ''
    })()`)
    // Tab order: the page's own controls, then the launcher, which opens with Enter.
    for (let i = 0; i < 5 && (await focusedName()) !== 'Chat with us'; i++) await page.keyboard.press('Tab')
    expect(await focusedName()).toBe('Chat with us')
    await page.keyboard.press('Enter')
    await expect.poll(() => dialog(page).isVisible()).toBe(true)
    await expect.poll(() => page.evaluate<string | undefined>(`document.querySelector('[data-wps-assistant]')?.shadowRoot?.activeElement?.id`)).toBe('wps-input')
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab')
      const inside = await page.evaluate<boolean>(`document.activeElement?.hasAttribute('data-wps-assistant') ?? false`)
      expect(inside).toBe(true)
    }
    await page.keyboard.press('Escape')
    await expect.poll(() => dialog(page).isVisible()).toBe(false)
    expect(await focusedName()).toBe('Chat with us')
    await page.context().close()
  })

  it('erases the conversation on request', async () => {
    const page = await openPage()
    await launcher(page).click()
    await expect.poll(() => page.evaluate(() => localStorage.getItem('wps-assistant:localhost'))).not.toBeNull()
    await page.getByRole('button', { name: 'Erase conversation' }).click()
    await expect.poll(() => page.getByRole('log').textContent()).toContain('The conversation was erased.')
    expect(await page.evaluate(() => localStorage.getItem('wps-assistant:localhost'))).toBeNull()
    await page.context().close()
  })
})
