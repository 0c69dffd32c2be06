import { describe, expect, it } from 'vitest'
import { BUSINESS_TYPES } from '../../src/domain/sites/templates/catalogue.ts'
import type { Locale } from '../../src/domain/locales.ts'
import { seriousFindings } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { buildSite } from './helpers.ts'
import { api } from './template-helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

// Each of the eight templates (each with its own preset) made into a first draft with a business's
// facts, published, and read on a phone in Chromium as a visitor: its fonts loaded from the site,
// nothing wider than the screen, no serious axe finding (colour contrast included), JSON-LD that
// parses with the opening hours, and the legal page. Three are kept as screenshots for the README.
describe.skipIf(!haveBrowser || onPostgres)('every template published, on a phone', { timeout: 240_000 }, async () => {
  const t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
  const port = new URL(t.base).port
  const browser = await launchBrowser(['--host-resolver-rules=MAP *.sites.test 127.0.0.1'])
  const page = await (await browser.newContext({ viewport: PHONE })).newPage()
  const owner = await makeAccount(t.app, 'max')
  const call = api(t.base, owner)
  const LANGUAGES: readonly Locale[] = ['fr', 'de', 'en']
  const LEGAL: Record<Locale, string> = { de: '/impressum', en: '/legal-notice', fr: '/mentions-legales' }
  const SHOWN = new Set(['bakery', 'salon', 'trades'])
  const NAMES: Record<string, string> = {
    bakery: 'Boulangerie Martin',
    restaurant: 'Gasthaus zur Linde',
    salon: 'Studio Belle',
    trades: 'Atelier Roux',
    consultant: 'Beratung Weber',
    shop: 'Corner Books',
    health: 'Cabinet Dr Morel',
    club: 'Turnverein Köln',
  }
  const PLACES: Record<Locale, { city: string; phone: string; address: string; postal_code: string }> = {
    fr: { city: 'Lyon', phone: '+33 4 78 00 00 00', address: '12 rue Mercière', postal_code: '69002' },
    de: { city: 'Köln', phone: '+49 221 123456', address: 'Hohe Str. 1', postal_code: '50667' },
    en: { city: 'Bristol', phone: '+44 117 496 0000', address: '1 Park Street', postal_code: 'BS1 5HX' },
  }

  it('publishes each as a draft a visitor reads well on a phone', async () => {
    const problems: string[] = []
    for (const [i, type] of BUSINESS_TYPES.entries()) {
      const lang = LANGUAGES[i % LANGUAGES.length]!
      const created = await call('POST', '/v1/sites', {
        name: NAMES[type],
        default_locale: lang,
        template: type,
        business: {
          type,
          ...PLACES[lang],
          opening_hours: { items: [{ day: 'tuesday', opens: '08:00', closes: '18:00' }] },
        },
      })
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      const site = created.json as Json
      expect((await buildSite(t.app, site['id'])).status).toBe('succeeded')
      const host = new URL(`https://${site['subdomain']}`).hostname
      for (const path of ['/', LEGAL[lang]]) {
        const answer = await page.goto(`http://${host}:${port}${path}`)
        expect(answer?.status(), `${type} ${path}`).toBe(200)
        await page.evaluate('document.fonts.ready')
        const label = `${type} (${lang}) ${path}`
        const fonts = await page.evaluate<string[]>('[...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family)')
        const wanted = await page.evaluate<string>('getComputedStyle(document.querySelector("h1, h2")).fontFamily')
        // The heading's own font, served by the site, is loaded (a preset on the visitor's fonts loads none).
        const heading = wanted.split(',')[0]!.replace(/"/g, '').trim()
        if (heading !== 'system-ui' && !fonts.includes(heading)) problems.push(`${label}: ${heading} not loaded`)
        if ((await page.evaluate<number>('document.documentElement.scrollWidth')) > PHONE.width)
          problems.push(`${label}: wider than a phone`)
        for (const finding of await seriousFindings(page)) problems.push(`${label}: ${finding}`)
        const graphs = await page.$$eval('script[type="application/ld+json"]', (scripts) => scripts.map((s) => s.textContent ?? ''))
        const nodes = graphs.flatMap((text) => (JSON.parse(text) as { '@graph'?: Json[] })['@graph'] ?? [])
        if (path === '/' && !nodes.some((n) => Array.isArray(n['openingHoursSpecification'])))
          problems.push(`${label}: no openingHoursSpecification`)
        if (path === '/' && SHOWN.has(type)) await page.screenshot({ path: screenshotPath(`template-${type}-phone`), fullPage: false })
      }
    }
    expect(problems).toEqual([])
  })
})
