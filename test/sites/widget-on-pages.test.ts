import { request as httpRequest } from 'node:http'
import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import type { SiteSettings } from '../../src/domain/sites/settings.ts'
import { onPostgres } from '../helpers/database.ts'
import { DESKTOP, haveBrowser, launchBrowser } from '../helpers/browser.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, FIXTURE_SETTINGS, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

/** A GET over a real connection with the Host header a browser sends for `host`. */
function hostGet(base: string, host: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: new URL(base).port, path, headers: { host } }, (res) => {
      let text = ''
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (text += c))
        .on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', reject).end()
  })
}

const withAssistant = (persona: string): SiteSettings => ({
  ...FIXTURE_SETTINGS,
  assistant: { enabled: true, persona, capabilities: { lead: true } },
})

describe('the widget on hosted pages', () => {
  let t: LiveApp
  let port: string
  let chatty: Site
  let quiet: Site
  let chattyHost: string
  let quietHost: string

  const bootstrap = (url: string | undefined, origin?: string) =>
    fetch(`${t.base}/api/agent/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
      body: JSON.stringify(url === undefined ? {} : { url }),
    })
  const widgetTag = (html: string) => cheerio.load(html)('script[src$="/widget.js"]')

  beforeAll(async () => {
    t = await startLiveApp()
    port = new URL(t.base).port
    const account = await makeAccount(t.app)
    await setAddOn(t.app.db, { accountId: account.accountId, addOn: 'ai_sales_assistant', on: true })
    chatty = await bakerySite(t.app, { accountId: account.accountId, settings: withAssistant('Hanna') })
    quiet = await bakerySite(t.app, {
      accountId: account.accountId,
      settings: { ...FIXTURE_SETTINGS, assistant: { enabled: false, persona: 'Mute' } },
    })
    chattyHost = `${chatty.slug}.localhost:${port}`
    quietHost = `${quiet.slug}.localhost:${port}`
    for (const site of [chatty, quiet]) expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () => expect(t.app.liveSites.byHost(`${quiet.slug}.localhost`)).toBeDefined())
  }, SETUP_TIMEOUT_MS)

  it("embeds the site's own widget on its preview and live pages, which greets as the site's assistant", async () => {
    for (const [host, path] of [
      ['127.0.0.1', `/s/${chatty.id}/`],
      ['127.0.0.1', `/s/${chatty.id}/de/about`],
      [chattyHost, '/'],
      [chattyHost, '/contact'],
    ] as const) {
      const page = await hostGet(t.base, host, path)
      expect(page.status, `${host}${path}`).toBe(200)
      const tag = widgetTag(page.text)
      expect(tag.length, `${host}${path}`).toBe(1)
      expect(tag.attr('src')).toBe(`${t.base}/widget.js`)
      expect(tag.attr('data-site')).toBe(`${chatty.slug}.localhost`)
    }
    // What the widget sends from the preview: the page's path on the site named by data-site.
    const fromPreview = await bootstrap(`https://${chatty.slug}.localhost/s/${chatty.id}/`, t.base)
    expect(fromPreview.status).toBe(200)
    expect(await fromPreview.json()).toMatchObject({ persona: 'Hanna', capabilities: { lead: true } })
    const fromSubdomain = await bootstrap(`http://${chattyHost}/contact`, `http://${chattyHost}`)
    expect(fromSubdomain.status).toBe(200)
    expect(fromSubdomain.headers.get('access-control-allow-origin')).toBe(`http://${chattyHost}`)
    expect(await fromSubdomain.json()).toMatchObject({ persona: 'Hanna' })
    // The sandboxed preview's opaque origin may open a session for that site's own preview page only.
    const sandboxed = await bootstrap(`https://${chatty.slug}.localhost/s/${chatty.id}/de/about`, 'null')
    expect(sandboxed.status).toBe(200)
    expect(sandboxed.headers.get('access-control-allow-origin')).toBe('null')
    for (const elsewhere of [`https://${chatty.slug}.localhost/`, `https://${chatty.slug}.localhost/s/${quiet.id}/`]) {
      const refused = await bootstrap(elsewhere, 'null')
      expect(refused.status, elsewhere).toBe(404)
      expect(await refused.json()).toMatchObject({ error: 'feature-disabled' })
    }
    // The service's own host still has the platform's assistant.
    expect(await (await bootstrap(undefined)).json()).toMatchObject({ persona: 'Ava' })
  })

  it("embeds no widget where the site's assistant is off, and that site has no assistant to bootstrap", async () => {
    for (const [host, path] of [
      ['127.0.0.1', `/s/${quiet.id}/`],
      [quietHost, '/'],
      [quietHost, '/about'],
    ] as const) {
      const page = await hostGet(t.base, host, path)
      expect(page.status, `${host}${path}`).toBe(200)
      expect(widgetTag(page.text).length, `${host}${path}`).toBe(0)
      expect(page.text).not.toContain('widget.js')
    }
    expect((await bootstrap(`https://${quiet.slug}.localhost/`)).status).toBe(404)
  })

  // One browser run, on the embedded database: Chromium resolves *.localhost to loopback by itself.
  it.skipIf(!haveBrowser || onPostgres)(
    "in Chromium, the preview and the subdomain greet visitors as the site's assistant",
    { timeout: 60_000 },
    async () => {
      const browser = await launchBrowser()
      for (const url of [`${t.base}/s/${chatty.id}/`, `http://${chattyHost}/`]) {
        const context = await browser.newContext({ viewport: DESKTOP })
        const page = await context.newPage()
        await page.goto(url)
        // The preview runs sandboxed, in an opaque origin: it could never act as the dashboard.
        const preview = url.includes('/s/')
        expect((await page.evaluate(() => (globalThis as unknown as { origin: string }).origin)) === 'null').toBe(preview)
        await page.getByRole('button', { name: 'Chat with us' }).click()
        await expect.poll(() => page.getByRole('dialog').getByRole('heading').textContent(), { timeout: 10_000 }).toBe('Hanna · Assistant')
        await context.close()
      }
      const context = await browser.newContext({ viewport: DESKTOP })
      const page = await context.newPage()
      await page.goto(`http://${quietHost}/`)
      await page.waitForLoadState('load')
      expect(await page.locator('[data-wps-assistant]').count()).toBe(0)
      await context.close()
    },
  )

  it('embeds no widget where the account lacks the assistant add-on, and embeds it once the add-on is on', async () => {
    const account = await makeAccount(t.app, 'plus')
    const site = await bakerySite(t.app, { accountId: account.accountId, settings: withAssistant('Nora') })
    const host = `${site.slug}.localhost:${port}`
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () => expect((await hostGet(t.base, host, '/')).status).toBe(200))
    for (const [h, path] of [
      ['127.0.0.1', `/s/${site.id}/`],
      [host, '/'],
    ] as const)
      expect(widgetTag((await hostGet(t.base, h, path)).text).length, `${h}${path}`).toBe(0)
    expect((await bootstrap(`https://${site.slug}.localhost/`)).status).toBe(404)

    await setAddOn(t.app.db, { accountId: account.accountId, addOn: 'ai_sales_assistant', on: true })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () =>
      expect(widgetTag((await hostGet(t.base, host, '/')).text).attr('data-site')).toBe(`${site.slug}.localhost`),
    )
    expect(await (await bootstrap(`https://${site.slug}.localhost/`)).json()).toMatchObject({ persona: 'Nora' })

    // Off again: the assistant is silent at once, and the next publish drops the script.
    await setAddOn(t.app.db, { accountId: account.accountId, addOn: 'ai_sales_assistant', on: false })
    expect((await bootstrap(`https://${site.slug}.localhost/`)).status).toBe(404)
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () => expect(widgetTag((await hostGet(t.base, host, '/')).text).length).toBe(0))
  })

  it('switching the assistant on embeds the widget from the next publish', async () => {
    await t.app.db
      .updateTable('sites')
      .set({ settings: JSON.stringify(withAssistant('Quinn')) })
      .where('id', '=', quiet.id)
      .execute()
    expect((await buildSite(t.app, quiet.id)).status).toBe('succeeded')
    await eventually(async () =>
      expect(widgetTag((await hostGet(t.base, quietHost, '/')).text).attr('data-site')).toBe(`${quiet.slug}.localhost`),
    )
    expect(await (await bootstrap(`https://${quiet.slug}.localhost/`)).json()).toMatchObject({ persona: 'Quinn' })
  })
})
