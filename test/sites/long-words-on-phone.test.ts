import { beforeAll, describe, expect, it } from 'vitest'
import type { Block, RenderPage } from '../../src/sites/render/index.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { onPostgres } from '../helpers/database.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE } from '../helpers/browser.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

// Content an exploratory test found making a published page 1403 px wide on a 390 px phone.
const MAPS = 'https://www.google.com/maps/place/Harbour+Bakery/@53.5510846,9.9936819,17z/data=!3m1!4b1!4m6!3m5!1s0x47b18f1!8m2!3d53.55'
const WORD = 'Donaudampfschifffahrtsgesellschaft'
const LONG_TITLE = 'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsbedingungen'
const LONG_LABEL = 'Donaudampfschifffahrtsgesellschaftskapitänsmützen-jetzt-vorbestellen-und-abholen'.slice(0, 80)
const CODE = `\`\`\`\ncurl -s ${MAPS}&output=embed&hl=de&q=Harbour+Bakery+Hamburg+Hafen+Sourdough+Rye+Spelt | jq .\n\`\`\``

const now = new Date()
const page = (path: string, title: string, blocks: Block[]): RenderPage => ({
  path,
  locale: 'en',
  title,
  description: `${title}: long words on a phone.`,
  updatedAt: now,
  blocks,
})

const PAGES: RenderPage[] = [
  page('/', 'Harbour Bakery', [
    { type: 'hero', content: { heading: WORD, subheading: `${WORD} ${MAPS}`, cta: { label: LONG_LABEL, href: '/contact' } } },
    {
      type: 'text',
      content: {
        markdown: `Find us here: ${MAPS}\n\nOr follow [${MAPS}](${MAPS}).\n\n${CODE}\n\n- ${WORD}${WORD}\n- \`${MAPS}\`\n\n| ${WORD} | ${MAPS} |\n|---|---|\n| ${WORD}${WORD} | ${MAPS} |`,
      },
    },
    {
      type: 'features',
      content: {
        heading: WORD,
        items: [
          { title: `${WORD}${WORD}`, text: MAPS },
          { title: 'Rye', text: `${WORD} ${MAPS}` },
        ],
      },
    },
    { type: 'faq', content: { items: [{ question: `${WORD}${WORD}?`, answer: MAPS }] } },
    { type: 'testimonial', content: { quote: `${WORD}${WORD}`, author: WORD, role: MAPS } },
    { type: 'cta', content: { heading: `${WORD}${WORD}`, text: MAPS, label: LONG_LABEL, href: MAPS } },
  ]),
  page('/about', LONG_TITLE, [
    { type: 'text', content: { markdown: `## ${WORD}${WORD}\n\n${MAPS}` } },
    { type: 'image', content: { src: 'https://images.example.org/oven.jpg', alt: 'The oven', caption: MAPS } },
  ]),
  page('/contact', 'Contact', [{ type: 'contact_form', content: { heading: `${WORD}${WORD}`, submit_label: LONG_LABEL } }]),
]

describe.skipIf(!haveBrowser || onPostgres)('long unbroken words and URLs on a phone', () => {
  let t: LiveApp
  let site: Site

  beforeAll(async () => {
    t = await startLiveApp()
    const account = await makeAccount(t.app)
    site = await bakerySite(t.app, { accountId: account.accountId, pages: PAGES })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    await eventually(async () => expect(t.app.liveSites.byHost(`${site.slug}.localhost`)).toBeDefined())
  }, SETUP_TIMEOUT_MS)

  it(`keep every published page and /docs within ${PHONE.width} px: text wraps, code scrolls in its own box`, {
    timeout: 60_000,
  }, async () => {
    const browser = await launchBrowser()
    const context = await browser.newContext({ viewport: PHONE })
    const tab = await context.newPage()
    const live = `http://${site.slug}.localhost:${new URL(t.base).port}`
    const tooWide: string[] = []
    for (const url of [`${live}/`, `${live}/about`, `${live}/contact`, `${t.base}/docs`]) {
      expect((await tab.goto(url))?.status(), url).toBe(200)
      const { scrollWidth, viewport } = await tab.evaluate<{ scrollWidth: number; viewport: number }>(
        '({ scrollWidth: document.documentElement.scrollWidth, viewport: innerWidth })',
      )
      expect(viewport).toBe(PHONE.width)
      if (scrollWidth > viewport) tooWide.push(`${url} is ${scrollWidth} px wide`)
    }
    expect(tooWide).toEqual([])
    // The home page holds all of it; the long line of code keeps its line and scrolls inside <pre>.
    await tab.goto(`${live}/`)
    expect(await tab.getByRole('heading', { level: 1 }).textContent()).toBe(WORD)
    expect(await tab.locator('header nav').first().getByRole('link', { name: LONG_TITLE }).count()).toBe(1)
    const pre = await tab
      .locator('pre')
      .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, lines: el.textContent!.trim().split('\n').length }))
    expect(pre.lines).toBe(1)
    expect(pre.scroll).toBeGreaterThan(pre.client)
    // axe finds nothing serious on it, a code box that scrolls included (a keyboard can reach it).
    const { check, findings } = await accessibilityChecker(browser, t.base)
    await check('the home page of long words', tab)
    expect(findings).toEqual([])
    await context.close()
  })
})
