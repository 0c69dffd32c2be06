import { llmsTxt, robotsTxt, sitemapXml } from './crawler-files.ts'
import { notFoundHtml, pageHtml, pageMarkdown, type PlacedPage } from './page.ts'
import { markdownPath, pageUrlPath } from './paths.ts'
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

/** Places every page of the site's locales, home first, and links translations by their path. */
export function placePages(site: RenderSite, pages: RenderPage[]): PlacedPage[] {
  const kept = pages.filter((p) => site.locales.includes(p.locale))
  kept.sort((a, b) => site.locales.indexOf(a.locale) - site.locales.indexOf(b.locale) || (a.path === '/' ? -1 : b.path === '/' ? 1 : a.path.localeCompare(b.path)))
  const byPath = new Map<string, RenderPage[]>()
  for (const page of kept) byPath.set(page.path, [...(byPath.get(page.path) ?? []), page])
  return kept.map((page) => ({
    page,
    urlPath: pageUrlPath(page.locale, page.path, site.defaultLocale),
    alternates: byPath.get(page.path)!.map((p) => ({ locale: p.locale, urlPath: pageUrlPath(p.locale, p.path, site.defaultLocale) })),
  }))
}

/**
 * A site's release as files: every page in HTML and Markdown, sitemap.xml, robots.txt, llms.txt
 * and the 404 page. Pure: the same input gives the same bytes.
 */
export function renderSite(site: RenderSite, pages: RenderPage[]): RenderedFile[] {
  const placed = placePages(site, pages)
  const byLocale = new Map<string, PlacedPage[]>()
  for (const p of placed) {
    const siblings = byLocale.get(p.page.locale)
    if (siblings) siblings.push(p)
    else byLocale.set(p.page.locale, [p])
  }
  const files: RenderedFile[] = []
  for (const p of placed) {
    files.push({ path: p.urlPath, contentType: CONTENT_TYPES.html, body: pageHtml(site, p, byLocale.get(p.page.locale)!) })
    files.push({ path: markdownPath(p.urlPath), contentType: CONTENT_TYPES.markdown, body: pageMarkdown(site, p) })
  }
  files.push(
    { path: '/sitemap.xml', contentType: CONTENT_TYPES.xml, body: sitemapXml(site, placed) },
    { path: '/robots.txt', contentType: CONTENT_TYPES.text, body: robotsTxt(site) },
    { path: '/llms.txt', contentType: CONTENT_TYPES.text, body: llmsTxt(site, placed) },
    { path: NOT_FOUND_PATH, contentType: CONTENT_TYPES.html, body: notFoundHtml(site) },
  )
  const seen = new Set<string>()
  for (const file of files) {
    if (seen.has(file.path)) throw new RenderError(`two files of the release would live at ${file.path}`)
    seen.add(file.path)
  }
  return files
}
