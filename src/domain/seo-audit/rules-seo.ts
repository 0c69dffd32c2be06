import { isAllowed } from './robots.ts'
import { clip, type Problem, type Rule } from './rule.ts'

const TITLE = { min: 10, max: 60 }
const DESCRIPTION = { min: 50, max: 160 }
const THIN_WORDS = 250
const HREFLANG = /^([a-z]{2,3}(-[a-z0-9]{2,8})*|x-default)$/i

function duplicates(values: Array<{ value: string | undefined; url: string }>): Map<string, string[]> {
  const byValue = new Map<string, string[]>()
  for (const { value, url } of values) {
    if (!value) continue
    const key = value.trim().toLowerCase()
    byValue.set(key, [...(byValue.get(key) ?? []), url])
  }
  return new Map([...byValue].filter(([, urls]) => urls.length > 1))
}

export const seoRules: Rule[] = [
  {
    id: 'seo.status',
    axis: 'seo',
    weight: 10,
    effort: 'medium',
    fix: 'Make every page answer 200 OK',
    page: (page) =>
      page.status >= 200 && page.status < 300
        ? []
        : [{ severity: 'critical', message: `The page answers HTTP ${page.status}`, evidence: String(page.status) }],
  },
  {
    id: 'seo.redirects',
    axis: 'seo',
    weight: 3,
    effort: 'low',
    fix: 'Link straight to the final URL; keep at most one redirect',
    page: (page) =>
      page.redirects > 1
        ? [{ severity: 'warning', message: `Reaching the page takes ${page.redirects} redirects`, evidence: `${page.redirects} hops` }]
        : [],
  },
  {
    id: 'seo.https',
    axis: 'seo',
    weight: 8,
    effort: 'medium',
    fix: 'Serve the site over HTTPS and redirect http to https',
    site: (site) =>
      site.https
        ? { problems: [] }
        : { problems: [{ severity: 'critical', message: 'The site is not served over HTTPS', evidence: site.origin }] },
  },
  {
    id: 'seo.title',
    axis: 'seo',
    weight: 8,
    effort: 'low',
    fix: `Give each page a unique title of ${TITLE.min}–${TITLE.max} characters`,
    page: (page) => {
      if (!page.title) return [{ severity: 'critical', message: 'The page has no title' }]
      if (page.title.length < TITLE.min || page.title.length > TITLE.max) {
        return [
          {
            severity: 'warning',
            message: `The title is ${page.title.length} characters; aim for ${TITLE.min}–${TITLE.max}`,
            evidence: clip(page.title),
          },
        ]
      }
      return []
    },
  },
  {
    id: 'seo.meta_description',
    axis: 'seo',
    weight: 6,
    effort: 'low',
    fix: `Write a meta description of ${DESCRIPTION.min}–${DESCRIPTION.max} characters`,
    page: (page) => {
      if (!page.description) return [{ severity: 'warning', message: 'The page has no meta description' }]
      const length = page.description.length
      if (length < DESCRIPTION.min || length > DESCRIPTION.max) {
        return [
          {
            severity: 'notice',
            message: `The meta description is ${length} characters; aim for ${DESCRIPTION.min}–${DESCRIPTION.max}`,
            evidence: clip(page.description),
          },
        ]
      }
      return []
    },
  },
  {
    id: 'seo.h1',
    axis: 'seo',
    weight: 5,
    effort: 'low',
    fix: 'Give each page exactly one h1 heading',
    page: (page) => {
      if (page.h1_count === 1) return []
      return [
        {
          severity: 'warning',
          message: page.h1_count === 0 ? 'The page has no h1 heading' : `The page has ${page.h1_count} h1 headings`,
          evidence: `${page.h1_count} h1`,
        },
      ]
    },
  },
  {
    id: 'seo.heading_order',
    axis: 'seo',
    weight: 2,
    effort: 'low',
    fix: 'Nest headings without skipping levels (h2 before h3)',
    page: (page) => {
      let previous = 0
      for (const heading of page.headings) {
        if (previous > 0 && heading.level > previous + 1) {
          return [
            {
              severity: 'notice',
              message: `Heading levels skip from h${previous} to h${heading.level}`,
              evidence: clip(`h${heading.level}: ${heading.text}`, 100),
            },
          ]
        }
        previous = heading.level
      }
      return []
    },
  },
  {
    id: 'seo.canonical',
    axis: 'seo',
    weight: 5,
    effort: 'low',
    fix: 'Add one absolute rel=canonical link that matches the Link header',
    page: (page) => {
      if (page.canonicals.length === 0)
        return page.header_canonical ? [] : [{ severity: 'warning', message: 'The page has no canonical link' }]
      const problems: Problem[] = []
      if (page.canonicals.length > 1)
        problems.push({
          severity: 'warning',
          message: `The page has ${page.canonicals.length} canonical links`,
          evidence: clip(page.canonicals.join(' ')),
        })
      const first = page.canonicals[0]!
      if (!/^https?:\/\//i.test(first))
        problems.push({ severity: 'warning', message: 'The canonical link is not an absolute URL', evidence: clip(first) })
      else {
        const resolved = new URL(first).href
        if (page.header_canonical && page.header_canonical !== resolved) {
          problems.push({
            severity: 'warning',
            message: 'The canonical link differs from the canonical in the Link header',
            evidence: clip(`${resolved} vs ${page.header_canonical}`),
          })
        }
        if (new URL(first).host !== new URL(page.url).host)
          problems.push({ severity: 'notice', message: 'The canonical link points to another host', evidence: clip(first) })
      }
      return problems
    },
  },
  {
    id: 'seo.robots_directives',
    axis: 'seo',
    weight: 10,
    effort: 'low',
    fix: 'Remove noindex from pages that should be found',
    page: (page) => {
      const problems: Problem[] = []
      if (/\b(noindex|none)\b/i.test(page.robots_meta))
        problems.push({
          severity: 'critical',
          message: 'A robots meta tag keeps the page out of search results',
          evidence: clip(page.robots_meta),
        })
      if (/\b(noindex|none)\b/i.test(page.x_robots_tag))
        problems.push({
          severity: 'critical',
          message: 'The X-Robots-Tag header keeps the page out of search results',
          evidence: clip(page.x_robots_tag),
        })
      return problems
    },
  },
  {
    id: 'seo.robots_txt',
    axis: 'seo',
    weight: 6,
    effort: 'low',
    fix: 'Publish a robots.txt that allows crawling and names the sitemap',
    site: (site) => {
      const { robots } = site
      if (robots.status === null || robots.status === 404 || robots.status === 410) {
        return {
          problems: [
            {
              severity: 'notice',
              message: 'There is no robots.txt',
              evidence: robots.status === null ? robots.error : `HTTP ${robots.status}`,
            },
          ],
          credit: 0.5,
        }
      }
      if (robots.status >= 500)
        return {
          problems: [
            {
              severity: 'critical',
              message: `robots.txt answers HTTP ${robots.status}; crawlers treat the whole site as blocked`,
              evidence: robots.url,
            },
          ],
        }
      if (robots.status >= 400)
        return {
          problems: [{ severity: 'notice', message: `robots.txt answers HTTP ${robots.status}`, evidence: robots.url }],
          credit: 0.5,
        }
      if (robots.parsed && !isAllowed(robots.parsed, 'Googlebot', '/')) {
        return {
          problems: [{ severity: 'critical', message: 'robots.txt blocks search engines from the whole site', evidence: 'Disallow: /' }],
        }
      }
      return { problems: [] }
    },
  },
  {
    id: 'seo.sitemap',
    axis: 'seo',
    weight: 5,
    effort: 'low',
    fix: 'Publish a valid XML sitemap and name it in robots.txt',
    site: (site) => {
      const problems: Problem[] = []
      const found = site.sitemaps.filter((s) => s.status !== null && s.status < 400)
      if (found.length === 0)
        return { problems: [{ severity: 'warning', message: 'No XML sitemap was found', evidence: site.sitemaps[0]?.url }] }
      for (const sitemap of found)
        if (sitemap.error) problems.push({ severity: 'warning', message: `The sitemap ${sitemap.error}`, evidence: sitemap.url })
      if (site.robots.parsed && site.robots.parsed.sitemaps.length === 0)
        problems.push({ severity: 'notice', message: 'robots.txt does not name the sitemap' })
      return { problems, credit: problems.some((p) => p.severity === 'warning') ? 0.3 : problems.length ? 0.8 : 1 }
    },
  },
  {
    id: 'seo.lang',
    axis: 'seo',
    weight: 3,
    effort: 'low',
    fix: 'Declare the page language with <html lang>',
    page: (page) => (page.lang ? [] : [{ severity: 'warning', message: 'The html element has no lang attribute' }]),
  },
  {
    id: 'seo.hreflang',
    axis: 'seo',
    weight: 2,
    effort: 'medium',
    fix: 'Use valid hreflang codes with absolute URLs, including x-default',
    page: (page) => {
      if (page.hreflang.length === 0) return null
      const problems: Problem[] = []
      for (const entry of page.hreflang) {
        if (!HREFLANG.test(entry.lang))
          problems.push({ severity: 'warning', message: 'An hreflang code is not a valid language code', evidence: entry.lang })
        if (!/^https?:\/\//i.test(entry.href))
          problems.push({ severity: 'warning', message: 'An hreflang link is not an absolute URL', evidence: clip(entry.href) })
      }
      return problems
    },
  },
  {
    id: 'seo.viewport',
    axis: 'seo',
    weight: 5,
    effort: 'low',
    fix: 'Add <meta name="viewport" content="width=device-width, initial-scale=1">',
    page: (page) =>
      page.viewport && /width\s*=\s*device-width/i.test(page.viewport)
        ? []
        : [{ severity: 'warning', message: 'The page has no mobile viewport', evidence: page.viewport }],
  },
  {
    id: 'seo.image_alt',
    axis: 'seo',
    weight: 3,
    effort: 'low',
    fix: 'Describe every image with an alt attribute (empty for decoration)',
    page: (page) =>
      page.images_without_alt.length === 0
        ? []
        : [
            {
              severity: 'warning',
              message: `${page.images_without_alt.length} of ${page.image_count} images have no alt attribute`,
              evidence: clip(page.images_without_alt.slice(0, 3).join(', ')),
            },
          ],
  },
  {
    id: 'seo.open_graph',
    axis: 'seo',
    weight: 3,
    effort: 'low',
    fix: 'Add og:title, og:description, og:image and og:url',
    page: (page) => {
      const missing = ['og:title', 'og:description', 'og:image', 'og:url'].filter((k) => !page.meta[k])
      return missing.length === 0
        ? []
        : [{ severity: 'notice', message: `Open Graph tags are missing: ${missing.join(', ')}`, evidence: missing.join(', ') }]
    },
  },
  {
    id: 'seo.twitter_card',
    axis: 'seo',
    weight: 1,
    effort: 'low',
    fix: 'Add a twitter:card meta tag',
    page: (page) => (page.meta['twitter:card'] ? [] : [{ severity: 'notice', message: 'There is no twitter:card meta tag' }]),
  },
  {
    id: 'seo.thin_content',
    axis: 'seo',
    weight: 4,
    effort: 'high',
    fix: `Give each page at least ${THIN_WORDS} words of useful text`,
    page: (page) =>
      page.word_count >= THIN_WORDS
        ? []
        : [{ severity: 'warning', message: `The page has only ${page.word_count} words of text`, evidence: `${page.word_count} words` }],
  },
  {
    id: 'seo.broken_links',
    axis: 'seo',
    weight: 5,
    effort: 'medium',
    premiumOnly: true,
    fix: 'Fix or remove internal links that lead to errors',
    site: (site) => {
      const problems: Problem[] = []
      const reported = new Set<string>()
      for (const page of site.pages) {
        for (const link of page.internal_links) {
          const target = link.split('#')[0]!
          if (reported.has(target) || !site.link_status.has(target)) continue
          const status = site.link_status.get(target)
          if (status === null || (status !== undefined && status >= 400)) {
            reported.add(target)
            problems.push({
              severity: 'warning',
              message: `An internal link leads to ${status === null ? 'a failed request' : `HTTP ${status}`}`,
              evidence: target,
              page: page.url,
            })
          }
        }
      }
      const checked = Math.max(1, site.link_status.size)
      return { problems, credit: Math.max(0, 1 - reported.size / checked) }
    },
  },
  {
    id: 'seo.duplicate_titles',
    axis: 'seo',
    weight: 3,
    effort: 'low',
    premiumOnly: true,
    fix: 'Give every page its own title',
    site: (site) => {
      const dupes = duplicates(site.pages.map((p) => ({ value: p.title, url: p.url })))
      return {
        problems: [...dupes].map(([title, urls]) => ({
          severity: 'warning' as const,
          message: `${urls.length} pages share one title`,
          evidence: clip(`"${title}": ${urls.join(' ')}`),
        })),
      }
    },
  },
  {
    id: 'seo.duplicate_descriptions',
    axis: 'seo',
    weight: 2,
    effort: 'low',
    premiumOnly: true,
    fix: 'Give every page its own meta description',
    site: (site) => {
      const dupes = duplicates(site.pages.map((p) => ({ value: p.description, url: p.url })))
      return {
        problems: [...dupes].map(([, urls]) => ({
          severity: 'notice' as const,
          message: `${urls.length} pages share one meta description`,
          evidence: clip(urls.join(' ')),
        })),
      }
    },
  },
]
