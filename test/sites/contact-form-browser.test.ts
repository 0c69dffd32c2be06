import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listLeads } from '../../src/domain/leads/leads.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { FORM_MIN_AGE_MS } from '../../src/sites/form-token.ts'
import { onPostgres } from '../helpers/database.ts'
import { launchBrowser, haveBrowser, PHONE } from '../helpers/browser.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

// A visitor's browser sends the contact form with whatever Origin, Referer and Sec-Fetch-Site its
// rules give the page it is on: only a real browser shows whether the form's own post is taken.
describe.skipIf(!haveBrowser || onPostgres)("a contact form sent by a visitor's browser", () => {
  let t: LiveApp
  let site: Site
  let host: string

  beforeAll(async () => {
    t = await startLiveApp()
    site = await bakerySite(t.app, { accountId: (await makeAccount(t.app)).accountId })
    host = `${site.slug}.localhost:${new URL(t.base).port}`
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () => expect(t.app.liveSites.byHost(`${site.slug}.localhost`)).toBeDefined())
  }, SETUP_TIMEOUT_MS)

  afterAll(() => t?.app.close())

  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])('becomes a lead and a thank-you page in Chromium %s', { timeout: 60_000 }, async (_, javaScriptEnabled) => {
    const browser = await launchBrowser()
    try {
      const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled })
      const page = await context.newPage()
      const email = `visitor-${javaScriptEnabled ? 'js' : 'nojs'}@example.org`
      expect((await page.goto(`http://${host}/contact`))!.status()).toBe(200)
      // The privacy link reads as words on a phone, not a column of letters beside the consent text.
      const link = (await page.locator('.consent a').boundingBox())!
      expect(link.height).toBeLessThan(40)
      await page.getByLabel('Name').fill('Vera Visitor')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Message').fill('Do you bake spelt bread on Sundays?')
      await page.locator('input[name=consent]').check()
      // A person reads and types for a moment; a post within 2 s of the page is a script's (form-token.ts).
      await page.waitForTimeout(FORM_MIN_AGE_MS)
      const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Send' }).click()])
      expect(answer!.status()).toBe(200)
      await expect.poll(() => page.locator('h1').textContent()).toBe('Thank you')
      const lead = (await listLeads(t.app.db, t.app.keyring, site.id)).find((l) => l.email === email)
      expect(lead).toMatchObject({ source: 'contact_form', name: 'Vera Visitor', note: 'Do you bake spelt bread on Sundays?' })
    } finally {
      await browser.close()
    }
  })

  it('works in the preview on the dashboard origin, which is sandboxed: an opaque origin, its form still sent', {
    timeout: 60_000,
  }, async () => {
    const browser = await launchBrowser()
    try {
      const page = await (await browser.newContext({ viewport: PHONE })).newPage()
      const res = await page.goto(`${t.base}/s/${site.id}/contact`)
      expect(res!.status()).toBe(200)
      expect(res!.headers()['content-security-policy']).toMatch(/; sandbox allow-forms/)
      // The page cannot reach the dashboard origin's cookies or storage.
      expect(await page.evaluate(() => (globalThis as unknown as { origin: string }).origin)).toBe('null')
      await page.getByLabel('Email').fill('preview@example.org')
      await page.locator('input[name=consent]').check()
      await page.waitForTimeout(FORM_MIN_AGE_MS)
      const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Send' }).click()])
      expect(answer!.status()).toBe(200)
      expect((await listLeads(t.app.db, t.app.keyring, site.id)).some((l) => l.email === 'preview@example.org')).toBe(true)
    } finally {
      await browser.close()
    }
  })
})
