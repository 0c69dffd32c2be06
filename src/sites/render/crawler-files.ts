import { LABELS } from './labels.ts'
import { markdownPath } from './paths.ts'
import { absoluteUrl, type PlacedPage } from './page.ts'
import { AI_CRAWLERS, CRAWLER_PURPOSES } from '../../domain/sites/ai-crawlers.ts'
import type { RenderSite } from './types.ts'

/** Everyone may crawl the pages (not the form and Webmention endpoints); AI crawlers of a refused purpose may not. */
export function robotsTxt(site: RenderSite): string {
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /_wps/', '']
  for (const purpose of CRAWLER_PURPOSES) {
    if (site.aiCrawlers[purpose]) continue
    const agents = AI_CRAWLERS.filter((c) => c.purpose === purpose).map((c) => `User-agent: ${c.agent}`)
    lines.push(`# AI crawlers (${purpose.replace('_', ' ')}): refused by the site owner`, ...agents, 'Disallow: /', '')
  }
  lines.push(`Sitemap: ${site.origin}/sitemap.xml`, '')
  return lines.join('\n')
}

function xml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Every page with its translations as xhtml:link alternates (Google's hreflang-in-sitemap form). */
export function sitemapXml(site: RenderSite, pages: PlacedPage[]): string {
  const urls = pages.map((p) => {
    const alternates =
      p.alternates.length > 1
        ? p.alternates
            .map((a) => `<xhtml:link rel="alternate" hreflang="${a.locale}" href="${xml(absoluteUrl(site, a.urlPath))}"/>`)
            .join('')
        : ''
    return `<url><loc>${xml(absoluteUrl(site, p.urlPath))}</loc><lastmod>${p.page.updatedAt.toISOString()}</lastmod>${alternates}</url>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">${urls.join('')}</urlset>\n`
}

function oneLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/([[\]()])/g, '\\$1')
    .trim()
}

/** llms.txt (llmstxt.org): the site's name, a summary, then each locale's pages linking to their Markdown. */
export function llmsTxt(site: RenderSite, pages: PlacedPage[]): string {
  const summary = site.description ?? pages.find((p) => p.urlPath === '/')?.page.description ?? site.name
  const parts = [`# ${oneLine(site.name)}`, `> ${oneLine(summary)}`]
  for (const locale of site.locales) {
    const inLocale = pages.filter((p) => p.page.locale === locale)
    if (inLocale.length === 0) continue
    parts.push(
      `## ${LABELS[locale].language}`,
      inLocale
        .map((p) => `- [${oneLine(p.page.title)}](${absoluteUrl(site, markdownPath(p.urlPath))}): ${oneLine(p.page.description)}`)
        .join('\n'),
    )
  }
  return `${parts.join('\n\n')}\n`
}
