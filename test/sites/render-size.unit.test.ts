import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { renderSite, type RenderPage } from '../../src/sites/render/index.ts'
import { NAVIGATION_PAGES } from '../../src/sites/render/page.ts'
import { englishPages, fixtureRenderSite, germanPages } from '../fixtures/hosted/content.ts'

const now = new Date('2026-11-20T10:00:00Z')
const site = fixtureRenderSite('https://bakery.example')

/** The fixture's home page and `count - 1` copies of its other pages under numbered paths. */
function pagesOf(count: number): RenderPage[] {
  const [home, ...rest] = englishPages(now)
  return [
    home!,
    ...Array.from({ length: count - 1 }, (_, i) => ({
      ...rest[i % rest.length]!,
      path: `/p${String(i).padStart(4, '0')}`,
      title: `Page ${i}`,
    })),
  ]
}

const navigationOf = (body: string) => {
  const $ = cheerio.load(body)
  return $('nav[aria-label] ul')
    .first()
    .find('a')
    .map((_, a) => ({ href: $(a).attr('href'), current: $(a).attr('aria-current') === 'page' }))
    .get()
}

const bytes = (pages: RenderPage[]) => renderSite(site, pages).reduce((sum, file) => sum + Buffer.byteLength(file.body), 0)

describe('a large site', () => {
  it(`lists the first ${NAVIGATION_PAGES} pages of a locale in every page's navigation, and a page further down after them`, () => {
    const files = new Map(renderSite(site, [...pagesOf(3 * NAVIGATION_PAGES), ...germanPages(now)]).map((f) => [f.path, f.body]))
    const early = navigationOf(files.get('/p0009')!)
    expect(early).toHaveLength(NAVIGATION_PAGES)
    expect(early[0]).toEqual({ href: './', current: false })
    expect(early.filter((a) => a.current).map((a) => a.href)).toEqual(['p0009'])
    const late = navigationOf(files.get('/p0120')!)
    expect(late).toHaveLength(NAVIGATION_PAGES + 1)
    expect(late.slice(0, NAVIGATION_PAGES)).toEqual(early.map((a) => ({ ...a, current: false })))
    expect(late.at(-1)).toEqual({ href: 'p0120', current: true })
    // Every page stays in the sitemap, and a small locale lists all of its pages.
    expect(files.get('/sitemap.xml')!.match(/<loc>/g)).toHaveLength(3 * NAVIGATION_PAGES + germanPages(now).length)
    expect(navigationOf(files.get('/de/')!)).toHaveLength(germanPages(now).length)
  })

  it('grows linearly: ten times the pages make at most ten times the bytes', () => {
    const small = bytes(pagesOf(NAVIGATION_PAGES))
    expect(bytes(pagesOf(10 * NAVIGATION_PAGES))).toBeLessThanOrEqual(10 * small)
  })
})
