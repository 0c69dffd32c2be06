import { llmsTxt, robotsTxt, sitemapXml } from './crawler-files.ts'
import { notFoundHtml, pageHtml, pageMarkdown, type PlacedPage } from './page.ts'
import { markdownPath, pageUrlPath } from './paths.ts'
import { impressumPage, legalLinks } from './legal-pages.ts'
import { privacyPages } from './privacy-page.ts'
import type { RenderedFile, RenderPage, RenderSite } from './types.ts'

export type * from './types.ts'
export { pageUrlPath } from './paths.ts'

/** Where the 404 page is kept in a release; it is served for every path the release lacks. */
export const NOT_FOUND_PATH = '/404.html'

export const CONTENT_TYPES = {
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
} as const

/** Thrown for content that cannot become a release (two files on one path); the build records the message. */
export class RenderError extends Error {
  override name = 'RenderError'
}

/**
 * The site with its business hours: those of the first opening-hours block, the default locale's
 * pages first (home first). They head the footer and the JSON-LD of every page.
 */
function withHours(site: RenderSite, pages: RenderPage[]): RenderSite {
  for (const p of placePages(site, pages))
    for (const block of p.page.blocks) if (block.type === 'opening_hours') return { ...site, hours: block.content }
  return site
}

/** Places every page of the site's locales, home first, and links translations by their path. */
export function placePages(site: RenderSite, pages: RenderPage[]): PlacedPage[] {
  const kept = pages.filter((p) => site.locales.includes(p.locale))
  kept.sort(
    (a, b) =>
      site.locales.indexOf(a.locale) - site.locales.indexOf(b.locale) ||
      (a.path === '/' ? -1 : b.path === '/' ? 1 : a.path.localeCompare(b.path)),
  )
  const byPath = new Map<string, RenderPage[]>()
  for (const page of kept) byPath.set(page.path, [...(byPath.get(page.path) ?? []), page])
  return kept.map((page) => ({
    page,
    urlPath: pageUrlPath(page.locale, page.path, site.defaultLocale),
    alternates: byPath.get(page.path)!.map((p) => ({ locale: p.locale, urlPath: pageUrlPath(p.locale, p.path, site.defaultLocale) })),
  }))
}

/**
 * A site's release as files: every page in HTML and Markdown, the privacy page its consent links
 * to where the site has none, sitemap.xml, robots.txt, llms.txt and the 404 page. Pure: the same
 * input gives the same bytes.
 */
export function renderSite(given: RenderSite, pages: RenderPage[]): RenderedFile[] {
  const site = given.hours ? given : withHours(given, pages)
  const placed = placePages(site, pages)
  const byLocale = new Map<string, PlacedPage[]>()
  for (const p of placed) {
    const siblings = byLocale.get(p.page.locale)
    if (siblings) siblings.push(p)
    else byLocale.set(p.page.locale, [p])
  }
  const siteFiles = [
    { path: '/sitemap.xml', contentType: CONTENT_TYPES.xml, body: sitemapXml(site, placed) },
    { path: '/robots.txt', contentType: CONTENT_TYPES.text, body: robotsTxt(site) },
    { path: '/llms.txt', contentType: CONTENT_TYPES.text, body: llmsTxt(site, placed) },
    { path: NOT_FOUND_PATH, contentType: CONTENT_TYPES.html, body: notFoundHtml(site) },
  ]
  // The privacy pages the consent links to and the site lacks (privacy-page.ts), and the Impressum
  // a German site lacks (legal-pages.ts), in the site's layout and style but kept apart from the
  // owner's pages: placed on their own, so no page of the owner gains an hreflang link to them,
  // and out of the navigation, sitemap.xml and llms.txt, which list what the owner published.
  // They stay indexable (a noindex page linked from every form is what the site audit reports as
  // critical), reached from the footer and the link they explain. One whose address or Markdown
  // alternate another file takes is not added: the build never fails for a page it was not asked for.
  const taken = new Set([...placed.flatMap((p) => [p.urlPath, markdownPath(p.urlPath)]), ...siteFiles.map((f) => f.path)])
  const impressum = impressumPage(site, placed)
  const addable = [...privacyPages(site, placed), ...(impressum ? [impressum] : [])].filter((page) => {
    const at = pageUrlPath(page.locale, page.path, site.defaultLocale)
    if (taken.has(at) || taken.has(markdownPath(at))) return false
    taken.add(at).add(markdownPath(at))
    return true
  })
  const added = placePages(site, addable).map((p): PlacedPage => ({ ...p, added: true }))
  const legal = legalLinks(site, [...placed, ...added])
  const files: RenderedFile[] = []
  const pageFiles = (p: PlacedPage) => [
    {
      path: p.urlPath,
      contentType: CONTENT_TYPES.html,
      body: pageHtml(site, p, byLocale.get(p.page.locale) ?? [], legal.get(p.page.locale)),
    },
    { path: markdownPath(p.urlPath), contentType: CONTENT_TYPES.markdown, body: pageMarkdown(site, p) },
  ]
  for (const p of [...placed, ...added]) files.push(...pageFiles(p))
  files.push(...siteFiles)
  const seen = new Set<string>()
  for (const file of files) {
    if (seen.has(file.path)) throw new RenderError(`two files of the release would live at ${file.path}`)
    seen.add(file.path)
  }
  return files
}
