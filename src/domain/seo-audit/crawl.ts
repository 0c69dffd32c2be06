import { load } from 'cheerio'
import { FetchError, type FetchResult, type SafeFetcher } from '../../infra/fetcher.ts'
import { extractPage, type PageFacts } from './page.ts'
import { isAllowed, parseRobots, type Robots } from './robots.ts'

/** Everything fetched for one audit; the rules read only this. */
export interface SiteData {
  domain: string
  premium: boolean
  reachable: boolean
  unreachable_reason: string | undefined
  /** Origin of the home page after redirects, e.g. https://example.com */
  origin: string
  https: boolean
  /** Home first; with premium, up to MAX_PAGES internal pages. */
  pages: PageFacts[]
  robots: { url: string; status: number | null; text: string; parsed: Robots | undefined; error: string | undefined }
  sitemaps: SitemapFacts[]
  llms: { url: string; status: number | null; text: string | undefined }
  /** Status of every internal URL fetched in the crawl (null: the fetch failed). */
  link_status: Map<string, number | null>
}

export interface SitemapFacts {
  url: string
  status: number | null
  kind: 'urlset' | 'sitemapindex' | undefined
  urls: string[]
  error: string | undefined
}

export const MAX_PAGES = 50
const CRAWL_CONCURRENCY = 8
const MAX_SITEMAPS = 4
export const CRAWLER_TOKEN = 'WebPresenceBot'
const NOT_A_PAGE = /\.(jpe?g|png|gif|webp|avif|svg|ico|pdf|zip|gz|mp4|mp3|webm|woff2?|ttf|css|js|json|xml|txt)$/i

function fetchFailure(error: unknown): string {
  if (error instanceof FetchError) return error.message
  return 'the request failed'
}

async function tryFetch(fetcher: SafeFetcher, url: string, timeoutMs: number, maxBytes = 1024 * 1024): Promise<FetchResult | FetchError> {
  try {
    return await fetcher.fetch(url, {
      timeoutMs,
      maxBytes,
      truncate: true,
      headers: { accept: 'text/html,application/xhtml+xml,text/plain,application/xml;q=0.9,*/*;q=0.8' },
    })
  } catch (error) {
    if (error instanceof FetchError) return error
    return new FetchError('connection_failed', fetchFailure(error), url)
  }
}

function pageFrom(result: FetchResult): PageFacts {
  return extractPage(result.url, result.status, result.headers, result.text(), result.redirects.length)
}

/** Home page over https, falling back to http when https cannot be reached at all. */
async function fetchHome(fetcher: SafeFetcher, domain: string): Promise<FetchResult | FetchError> {
  const secure = await tryFetch(fetcher, `https://${domain}/`, 10_000, 2 * 1024 * 1024)
  if (!(secure instanceof FetchError)) return secure
  // A name that does not resolve, or resolves to a refused address, fails over http alike.
  if (secure.code === 'dns_failed' || secure.code === 'forbidden_address' || secure.code === 'invalid_url') return secure
  return tryFetch(fetcher, `http://${domain}/`, 10_000, 2 * 1024 * 1024)
}

export function parseSitemap(url: string, status: number | null, xml: string): SitemapFacts {
  if (status === null || status >= 400)
    return { url, status, kind: undefined, urls: [], error: status === null ? 'could not be fetched' : `answered ${status}` }
  const $ = load(xml, { xml: true })
  const root = $.root().children().first()
  const name = root.length ? (root.prop('tagName') ?? '').toLowerCase().replace(/^.*:/, '') : ''
  if (name !== 'urlset' && name !== 'sitemapindex')
    return { url, status, kind: undefined, urls: [], error: 'is not a sitemap (no urlset or sitemapindex root)' }
  const locs = $(name === 'urlset' ? 'url > loc' : 'sitemap > loc')
    .map((_, el) => $(el).text().trim())
    .get()
  const urls: string[] = []
  let invalid = 0
  for (const loc of locs) {
    try {
      const parsed = new URL(loc)
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') urls.push(parsed.href)
      else invalid++
    } catch {
      invalid++
    }
  }
  const error = locs.length === 0 ? 'lists no URLs' : invalid > 0 ? `has ${invalid} entries that are not absolute URLs` : undefined
  return { url, status, kind: name, urls, error }
}

async function fetchSitemaps(fetcher: SafeFetcher, origin: string, robots: Robots | undefined): Promise<SitemapFacts[]> {
  const declared = robots?.sitemaps.length ? robots.sitemaps.slice(0, MAX_SITEMAPS) : [`${origin}/sitemap.xml`]
  const out: SitemapFacts[] = []
  const queue = [...declared]
  while (queue.length > 0 && out.length < MAX_SITEMAPS) {
    const url = queue.shift()!
    const result = await tryFetch(fetcher, url, 5000, 5 * 1024 * 1024)
    const facts = result instanceof FetchError ? parseSitemap(url, null, '') : parseSitemap(url, result.status, result.text())
    out.push(facts)
    if (facts.kind === 'sitemapindex') queue.push(...facts.urls.slice(0, MAX_SITEMAPS))
  }
  return out
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin
  } catch {
    return false
  }
}

/** Internal pages from the sitemap and the links found, breadth first, MAX_PAGES in all. */
async function crawl(fetcher: SafeFetcher, data: SiteData, robots: Robots | undefined): Promise<void> {
  const home = data.pages[0]!
  const seen = new Set<string>([home.url])
  const queue: string[] = []
  const offer = (url: string) => {
    const clean = url.split('#')[0]!
    if (seen.has(clean) || !sameOrigin(clean, data.origin) || NOT_A_PAGE.test(new URL(clean).pathname)) return
    if (robots && !isAllowed(robots, CRAWLER_TOKEN, new URL(clean).pathname)) return
    seen.add(clean)
    queue.push(clean)
  }
  home.internal_links.forEach(offer)
  for (const sitemap of data.sitemaps) if (sitemap.kind === 'urlset') sitemap.urls.forEach(offer)
  data.link_status.set(home.url, home.status)

  let started = 1
  const worker = async () => {
    while (queue.length > 0 && started < MAX_PAGES) {
      const url = queue.shift()!
      started++
      const result = await tryFetch(fetcher, url, 5000)
      if (result instanceof FetchError) {
        data.link_status.set(url, null)
        continue
      }
      data.link_status.set(url, result.status)
      if (result.url !== url) data.link_status.set(result.url, result.status)
      const page = pageFrom(result)
      if (!page.is_html || result.status >= 400) continue
      data.pages.push(page)
      page.internal_links.forEach(offer)
    }
  }
  // Workers may find the queue empty while others are still adding to it; run rounds until drained.
  while (queue.length > 0 && started < MAX_PAGES) {
    await Promise.all(Array.from({ length: CRAWL_CONCURRENCY }, worker))
  }
}

/** Fetches what an audit reads: home, robots.txt, sitemaps, llms.txt, and with premium the crawl. */
export async function collectSite(fetcher: SafeFetcher, domain: string, premium: boolean): Promise<SiteData> {
  const data: SiteData = {
    domain,
    premium,
    reachable: false,
    unreachable_reason: undefined,
    origin: `https://${domain}`,
    https: false,
    pages: [],
    robots: { url: `https://${domain}/robots.txt`, status: null, text: '', parsed: undefined, error: undefined },
    sitemaps: [],
    llms: { url: `https://${domain}/llms.txt`, status: null, text: undefined },
    link_status: new Map(),
  }
  const home = await fetchHome(fetcher, domain)
  if (home instanceof FetchError) {
    data.unreachable_reason = home.message
    return data
  }
  data.reachable = true
  data.origin = new URL(home.url).origin
  data.https = home.url.startsWith('https:')
  data.pages.push(pageFrom(home))

  const [robots, llms] = await Promise.all([
    tryFetch(fetcher, `${data.origin}/robots.txt`, 5000, 512 * 1024),
    tryFetch(fetcher, `${data.origin}/llms.txt`, 5000, 512 * 1024),
  ])
  data.robots.url = `${data.origin}/robots.txt`
  if (robots instanceof FetchError) data.robots.error = robots.message
  else {
    data.robots.status = robots.status
    if (robots.status < 300) {
      data.robots.text = robots.text()
      data.robots.parsed = parseRobots(data.robots.text)
    }
  }
  data.llms.url = `${data.origin}/llms.txt`
  if (!(llms instanceof FetchError)) {
    data.llms.status = llms.status
    if (llms.status < 300) data.llms.text = llms.text()
  }
  data.sitemaps = await fetchSitemaps(fetcher, data.origin, data.robots.parsed)
  if (premium) await crawl(fetcher, data, data.robots.parsed)
  return data
}
