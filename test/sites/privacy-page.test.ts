import { request as httpRequest } from 'node:http'
import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SiteSettings } from '../../src/domain/sites/settings.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { englishPages, germanPages } from '../fixtures/hosted/content.ts'
import { bakerySite, buildSite, FIXTURE_SETTINGS, SETUP_TIMEOUT_MS } from './helpers.ts'

/** One GET over a real connection, with the Host header a browser would send for `host`. */
function hostGet(base: string, host: string, path: string): Promise<{ status: number; text: string }> {
  const { port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const NAME = 'Hansen & Söhne <Bakery>'
const EMAIL = 'bread&rolls@hansen.example'
const hosting = (FIXTURE_SETTINGS as { hosting: { organization: Record<string, unknown> } }).hosting
const withOrganization = (organization: Record<string, unknown>, more: SiteSettings = {}): SiteSettings =>
  ({ ...FIXTURE_SETTINGS, ...more, hosting: { ...hosting, organization: { ...hosting.organization, ...organization } } }) as SiteSettings
/** The bakery's pages without its privacy pages. */
const withoutPrivacy = () => [...englishPages(new Date()), ...germanPages(new Date())].filter((p) => p.path !== '/privacy')

describe('the privacy page a consent links to', () => {
  let t: LiveApp
  let accountId: string
  const get = (host: string, path: string) => hostGet(t.base, host, path)

  beforeAll(async () => {
    t = await startLiveApp()
    accountId = (await makeAccount(t.app)).accountId
  }, SETUP_TIMEOUT_MS)

  it('is added in each locale where the site has none, in the site’s layout, with the organization’s details escaped', async () => {
    const host = 'plain-bakery.example'
    const site = await bakerySite(t.app, {
      accountId,
      hostname: host,
      settings: withOrganization({ name: NAME, email: EMAIL }),
      pages: withoutPrivacy(),
    })
    // The owner's five pages: the page the build adds counts against nothing.
    expect(await buildSite(t.app, site.id)).toMatchObject({ status: 'succeeded', pages: 5 })

    const contact = cheerio.load((await get(host, '/contact')).text)
    const href = contact('form .consent a').attr('href')!
    expect(contact('form .consent a').text()).toBe('Privacy policy')
    const linked = new URL(href, `http://${host}/contact`).pathname
    expect(linked).toBe('/privacy')

    for (const [path, locale, title, rest] of [
      ['/privacy', 'en', 'Privacy policy', 'write to'],
      ['/de/privacy', 'de', 'Datenschutzerklärung', 'schreiben Sie an'],
    ] as const) {
      const res = await get(host, path)
      expect(res.status, path).toBe(200)
      const $ = cheerio.load(res.text)
      expect($('html').attr('lang')).toBe(locale)
      expect($('h1').text()).toBe(title)
      const main = $('main').text()
      expect(main).toContain(NAME)
      expect(main).toContain(EMAIL)
      expect(main).toContain(rest)
      expect(main).toContain('Market Street 12, 20095 Hamburg')
      expect($('main a[href^="mailto:"]').first().attr('href')).toBe(`mailto:${EMAIL}`)
      // Escaped in the HTML itself, never raw markup.
      expect(res.text).toContain('Hansen &amp; Söhne &lt;Bakery&gt;')
      expect(res.text).toContain('bread&amp;rolls@hansen.example')
      expect(res.text).not.toContain('<Bakery>')
      // The same layout and style as the owner's pages, without joining their navigation.
      const home = cheerio.load((await get(host, locale === 'en' ? '/' : '/de/')).text)
      expect($('style').text()).toBe(home('style').text())
      expect($('header .brand').text()).toBe(home('header .brand').text())
      expect(
        $('header nav a')
          .map((_, a) => $(a).text())
          .get(),
      ).toEqual(
        home('header nav a')
          .map((_, a) => home(a).text())
          .get(),
      )
      expect($('footer p').text()).toBe(home('footer p').text())
      expect((await get(host, `${path}.md`)).status).toBe(200)
    }
    expect((await get(host, linked)).status).toBe(200)
    // Out of the sitemap and llms.txt, which list the owner's pages.
    const sitemap = (await get(host, '/sitemap.xml')).text
    expect(sitemap).toContain(`<loc>https://${host}/contact</loc>`)
    expect(sitemap).not.toContain('privacy')
    expect((await get(host, '/llms.txt')).text).not.toContain('privacy')
  })

  it("is found by a link written for the default locale, as the assistant's widget shows it", async () => {
    const host = 'linked-bakery.example'
    const site = await bakerySite(t.app, { accountId, hostname: host, pages: withoutPrivacy() })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    const location = (path: string) =>
      new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: new URL(t.base).port, path, headers: { host } }, (res) => {
          res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }))
        })
          .on('error', reject)
          .end()
      })
    // English is the bakery's default: its pages live at the root.
    expect(await location('/en/privacy')).toEqual({ status: 301, location: '/privacy' })
    expect(await location('/en/about')).toEqual({ status: 301, location: '/about' })
    // German has its own pages: a German address that is not one stays a 404.
    expect((await location('/de/privacy')).status).toBe(200)
    expect((await location('/de/nowhere')).status).toBe(404)
    expect((await location('/xx/privacy')).status).toBe(404)
  })

  it('offers the contact form for access and deletion when the organization names no email', async () => {
    const host = 'no-email.example'
    const site = await bakerySite(t.app, { accountId, hostname: host, pages: withoutPrivacy() })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    const $ = cheerio.load((await get(host, '/privacy')).text)
    expect($('main').text()).toContain('This site is run by Hansen Bakery, Market Street 12')
    expect($('main a[href^="mailto:"]').length).toBe(0)
    expect($('main a').last().text()).toBe('the contact form')
    expect(new URL($('main a').last().attr('href')!, `http://${host}/privacy`).pathname).toBe('/contact')
  })

  it('leaves a site’s own privacy page as it is', async () => {
    const host = 'own-privacy.example'
    const site = await bakerySite(t.app, { accountId, hostname: host, settings: withOrganization({ email: EMAIL }) })
    expect(await buildSite(t.app, site.id)).toMatchObject({ status: 'succeeded', pages: 7 })
    const en = cheerio.load((await get(host, '/privacy')).text)
    expect(en('h1').text()).toBe('Privacy at Hansen Bakery')
    expect(en('main').text()).toContain('This page explains which personal data the bakery keeps and why.')
    expect(en('main').text()).not.toContain('This site is run by')
    expect(
      cheerio
        .load((await get(host, '/de/privacy')).text)('h1')
        .text(),
    ).toBe('Datenschutz der Bäckerei Hansen')
  })

  it('adds no page for a consent that links off the site, and one at a custom address on it', async () => {
    const host = 'custom-consent.example'
    const settings = withOrganization(
      {},
      {
        assistant: {
          lead_consent: {
            en: { text: 'I agree.', privacy: { label: 'Our policy', url: 'https://law.example/privacy' } },
            de: { text: 'Ich stimme zu.', privacy: { label: 'Datenschutz', url: '/de/datenschutz' } },
          },
        },
      },
    )
    const site = await bakerySite(t.app, { accountId, hostname: host, settings, pages: withoutPrivacy() })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    expect(
      cheerio
        .load((await get(host, '/contact')).text)('form .consent a')
        .attr('href'),
    ).toBe('https://law.example/privacy')
    expect((await get(host, '/privacy')).status).toBe(404)
    expect((await get(host, '/de/privacy')).status).toBe(404)
    const de = await get(host, '/de/datenschutz')
    expect(de.status).toBe(200)
    expect(cheerio.load(de.text)('h1').text()).toBe('Datenschutzerklärung')
  })
})
