import * as cheerio from 'cheerio'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { en } from '../../src/domain/i18n/catalogues/en.ts'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { DESKTOP, haveBrowser, launchBrowser } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam } from '../teams/helpers.ts'
import { type Language, leftInEnglish } from './dashboard-helpers.ts'
import { englishSentences } from './helpers.ts'

// Every page of the dashboard an owner reaches by following its links, in Chromium without
// JavaScript, in English, German and French: no catalogue key shown raw, no English sentence left
// on a German or French page, and axe-core finds nothing serious in any language.

const LANGUAGES: readonly Language[] = ['en', 'de', 'fr']
/** Pages of one kind are crawled once: ids in a path are one shape. */
const shapeOf = (path: string) =>
  path
    .replace(/\?.*/, '')
    .replace(/\/[a-z]{2,5}_[0-9A-Za-z_-]{10,}/g, '/:id')
    .replace(/\/\d+(?=\/|$)/g, '/:n')
/** What is not a page of the dashboard: files, the site's own pages in the preview, the way out. */
const notAPage = /\.(csv|js|json|zip|png|webp|jpe?g)$|\/preview|\/export\/|\/download/
const KEYS = new Set(Object.keys(en))
/** Words of English a German or French page may show: names and what the test's people typed. */
const NAMES = ['Harbour Café', 'Stripe', 'Web Presence']

/** The words people read or hear in a page: its text and the labels of its controls. */
function shownWords($: cheerio.CheerioAPI): string {
  const labels = $('[aria-label], [placeholder], [title], [alt]')
    .map((_i, el) => ['aria-label', 'placeholder', 'title', 'alt'].map((name) => $(el).attr(name) ?? '').join(' '))
    .get()
  const buttons = $('input[type=submit], input[type=button]')
    .map((_i, el) => $(el).attr('value') ?? '')
    .get()
  return [$('body').text(), ...labels, ...buttons, $('title').text()].join(' ').replace(/\s+/g, ' ')
}

/** Catalogue keys shown as they are, instead of their message. */
function rawKeys(words: string): string[] {
  return [...new Set(words.match(/\b[a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_-]+)+\b/g) ?? [])].filter((word) => KEYS.has(word))
}

describe.skipIf(!haveBrowser || onPostgres)(
  'every dashboard page in Chromium without JavaScript, in each language',
  { timeout: 300_000 },
  async () => {
    const { app, base } = await startLiveApp()
    const browser = await launchBrowser()
    const checkers = new Map<Language, Awaited<ReturnType<typeof accessibilityChecker>>>()

    const team = await makeTeam(app, 'pro')
    const site = await createSite(app.db, { name: 'Harbour Café', accountId: team.accountId })
    await createPage(app.db, site, { path: '/menu', title: 'Menu' })
    const consent = { version: CONSENT_VERSION, digest: 'c'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
    await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: 'guest@example.org',
      name: 'Guest',
      note: 'Tisch',
      consent,
      source: 'contact_form',
    })
    await createEndpoint(app.db, app.keyring, team.accountId, { url: 'https://hooks.example.org/in', eventTypes: ['lead.received'] })

    const tabs = new Map<Language, Page>()
    for (const lang of LANGUAGES) {
      const context = await browser.newContext({
        viewport: DESKTOP,
        javaScriptEnabled: false,
        extraHTTPHeaders: { 'accept-language': lang },
      })
      const [name, value] = team.owner.cookie.split('=') as [string, string]
      await context.addCookies([{ name, value, url: base }])
      tabs.set(lang, await context.newPage())
      checkers.set(lang, await accessibilityChecker(browser, base))
    }

    /** The page at `path` as a browser in `lang` shows it, checked by axe, and the dashboard links it offers. */
    async function visit(lang: Language, path: string) {
      const page = tabs.get(lang)!
      const response = await page.goto(`${base}${path}`, { waitUntil: 'domcontentloaded' })
      expect(response?.status(), `${path} in ${lang}`).toBe(200)
      const $ = cheerio.load(await page.content())
      expect($('html').attr('lang'), path).toBe(lang)
      await checkers.get(lang)!.check(`${path} (${lang})`, page)
      const links = $('a[href]')
        .map((_i, a) => new URL($(a).attr('href')!, `${base}${path}`))
        .get()
        .filter((url) => url.origin === base && url.pathname.startsWith('/app') && !notAPage.test(url.pathname))
        .map((url) => url.pathname + url.search)
      // Machine words (ids, addresses, a receiver's answer) are shown as code in every language.
      $('code, pre').remove()
      return { $, links }
    }

    it('crawls the dashboard from its overview in each language and finds every page translated and accessible', async () => {
      const queue = ['/app']
      const seen = new Set([shapeOf('/app')])
      const problems: string[] = []
      const english = englishSentences('')
      for (let path = queue.shift(); path; path = queue.shift()) {
        // The three languages at once: each has its own browser context and axe page.
        const visits = await Promise.all(LANGUAGES.map((lang) => visit(lang, path)))
        const pages = new Map(LANGUAGES.map((lang, i) => [lang, visits[i]!.$]))
        for (const [i, lang] of LANGUAGES.entries()) {
          const { $, links } = visits[i]!
          for (const link of links)
            if (!seen.has(shapeOf(link))) {
              seen.add(shapeOf(link))
              queue.push(link)
            }
          const words = shownWords($)
          for (const key of rawKeys(words)) problems.push(`${path} (${lang}): the key ${key} shown raw`)
          if (lang === 'en') continue
          for (const piece of leftInEnglish(pages.get('en')!, $, NAMES)) problems.push(`${path} (${lang}): “${piece}” is English`)
          for (const sentence of english) if (words.includes(sentence)) problems.push(`${path} (${lang}): “${sentence}” is English`)
        }
      }
      expect(problems).toEqual([])
      expect(LANGUAGES.flatMap((lang) => checkers.get(lang)!.findings)).toEqual([])
      // The crawl reached the pages the owner's menu leads to, each in three languages.
      for (const path of [
        '/app/sites',
        '/app/leads',
        '/app/stats',
        '/app/members',
        '/app/billing',
        '/app/tokens',
        '/app/webhooks',
        '/app/audit-log',
      ])
        expect(seen, path).toContain(shapeOf(path))
      for (const lang of LANGUAGES) expect(checkers.get(lang)!.checked.length).toBe(seen.size)
    })
  },
)
