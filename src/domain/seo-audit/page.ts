import { load, type CheerioAPI } from 'cheerio'

/** What the rules need to know about one fetched HTML page, extracted once. */
export interface PageFacts {
  url: string
  status: number
  /** Hops followed to reach `url`. */
  redirects: number
  is_html: boolean
  x_robots_tag: string
  /** rel=canonical from the HTTP Link header, when sent. */
  header_canonical: string | undefined
  title: string | undefined
  description: string | undefined
  h1_count: number
  headings: Array<{ level: number; text: string }>
  /** Every rel=canonical href in the document. */
  canonicals: string[]
  robots_meta: string
  lang: string | undefined
  hreflang: Array<{ lang: string; href: string }>
  viewport: string | undefined
  images_without_alt: string[]
  image_count: number
  meta: Record<string, string>
  json_ld: Array<{ valid: boolean; error?: string; items: JsonLdItem[] }>
  word_count: number
  paragraphs: string[]
  /** Question-style h2/h3 headings and the text of the paragraph right after each. */
  questions: Array<{ heading: string; answer: string | undefined }>
  internal_links: string[]
  external_links: string[]
  link_texts: Array<{ href: string; text: string }>
  markdown_alternates: string[]
  has_author_markup: boolean
  has_date_markup: boolean
  /** Sentences that carry a number (figures, dates, amounts). */
  numeric_sentences: number
  script_count: number
}

export type JsonLdItem = Record<string, unknown> & { '@type'?: string | string[] }

const QUESTION_START =
  /^(how|what|why|when|where|which|who|can|does|do|is|are|should|will|wie|was|warum|wann|wo|welche|wer|kann|comment|pourquoi|quand|où|quel|quelle|qui)\b/i

function words(text: string): number {
  const matches = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)
  return matches ? matches.length : 0
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** Flattens JSON-LD documents: arrays and @graph become a list of typed items. */
function flattenJsonLd(value: unknown, out: JsonLdItem[] = [], depth = 0): JsonLdItem[] {
  if (depth > 4 || value === null || typeof value !== 'object') return out
  if (Array.isArray(value)) {
    for (const item of value) flattenJsonLd(item, out, depth + 1)
    return out
  }
  const record = value as JsonLdItem
  if (Array.isArray(record['@graph'])) flattenJsonLd(record['@graph'], out, depth + 1)
  if (record['@type'] !== undefined) out.push(record)
  return out
}

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    url.hash = ''
    return url.href
  } catch {
    return undefined
  }
}

function parseLinkHeaderCanonical(link: string | undefined, base: string): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim())
    if (match && /rel\s*=\s*"?canonical"?/i.test(match[2] ?? '')) return absolute(match[1]!, base)
  }
  return undefined
}

/** The meta tags by name or property, the first of each kept. */
function metaTags($: CheerioAPI): Record<string, string> {
  const meta: Record<string, string> = {}
  $('meta').each((_, el) => {
    const key = ($(el).attr('property') ?? $(el).attr('name') ?? '').toLowerCase().trim()
    const content = $(el).attr('content')
    if (key && content !== undefined && !(key in meta)) meta[key] = content.trim()
  })
  return meta
}

function headingsOf($: CheerioAPI): PageFacts['headings'] {
  const headings: PageFacts['headings'] = []
  $('h1, h2, h3, h4, h5, h6').each((_, el) => {
    headings.push({ level: Number(el.tagName.slice(1)), text: squash($(el).text()) })
  })
  return headings
}

function jsonLdOf($: CheerioAPI): PageFacts['json_ld'] {
  const jsonLd: PageFacts['json_ld'] = []
  $('script[type="application/ld+json"]').each((_, el) => {
    const text = $(el).text()
    try {
      jsonLd.push({ valid: true, items: flattenJsonLd(JSON.parse(text)) })
    } catch (error) {
      jsonLd.push({ valid: false, error: (error as Error).message.slice(0, 120), items: [] })
    }
  })
  return jsonLd
}

/** Links of the page, absolute, told apart by host, with their texts. */
function linksOf($: CheerioAPI, url: string) {
  const host = new URL(url).host
  const internal = new Set<string>()
  const external = new Set<string>()
  const linkTexts: PageFacts['link_texts'] = []
  $('a[href]').each((_, el) => {
    const href = absolute($(el).attr('href') ?? '', url)
    if (!href) return
    linkTexts.push({ href, text: squash($(el).text()).toLowerCase() })
    if (new URL(href).host === host) internal.add(href)
    else external.add(href)
  })
  return { internal_links: [...internal], external_links: [...external], link_texts: linkTexts }
}

function imagesOf($: CheerioAPI) {
  const imagesWithoutAlt: string[] = []
  const images = $('img')
  images.each((_, el) => {
    if ($(el).attr('alt') === undefined) imagesWithoutAlt.push($(el).attr('src') ?? '(no src)')
  })
  return { images_without_alt: imagesWithoutAlt, image_count: images.length }
}

function markdownAlternatesOf($: CheerioAPI, url: string): string[] {
  const markdownAlternates: string[] = []
  $('link[rel~="alternate"]').each((_, el) => {
    const type = ($(el).attr('type') ?? '').toLowerCase()
    const href = absolute($(el).attr('href') ?? '', url)
    if (href && (type === 'text/markdown' || type === 'text/x-markdown' || /\.md$/i.test(new URL(href).pathname)))
      markdownAlternates.push(href)
  })
  return markdownAlternates
}

/** Headings phrased as questions, with the paragraph that answers each. */
function questionsOf($: CheerioAPI): PageFacts['questions'] {
  const questions: PageFacts['questions'] = []
  $('h2, h3').each((_, el) => {
    const heading = squash($(el).text())
    if (!heading.endsWith('?') && !QUESTION_START.test(heading)) return
    const next = $(el).nextUntil('h1, h2, h3, h4, h5, h6').filter('p').first()
    questions.push({ heading, answer: next.length ? squash(next.text()) : undefined })
  })
  return questions
}

/** The visible text, once scripts, styles and other non-text elements are removed from the document. */
function visibleText($: CheerioAPI) {
  $('script, style, noscript, template, svg').remove()
  const bodyText = squash($('body').text())
  const paragraphs = $('p')
    .map((_, el) => squash($(el).text()))
    .get()
    .filter((p) => p.length > 0)
  const sentences = bodyText.split(/(?<=[.!?])\s+/)
  return { bodyText, paragraphs, numericSentences: sentences.filter((s) => /\d/.test(s) && words(s) >= 4).length }
}

/** Whether the page names its author and its date, in meta tags, markup or JSON-LD. */
function authorAndDate($: CheerioAPI, meta: Record<string, string>, jsonLd: PageFacts['json_ld']) {
  const jsonLdItems = jsonLd.flatMap((d) => d.items)
  const hasAuthor =
    Boolean(meta['author']) ||
    $('[rel~="author"]').length > 0 ||
    $('[itemprop="author"]').length > 0 ||
    jsonLdItems.some((item) => item['author'] !== undefined)
  const hasDate =
    Boolean(meta['article:published_time'] || meta['article:modified_time']) ||
    $('time[datetime]').length > 0 ||
    jsonLdItems.some((item) => item['datePublished'] !== undefined || item['dateModified'] !== undefined)
  return { has_author_markup: hasAuthor, has_date_markup: hasDate }
}

export function extractPage(url: string, status: number, headers: Record<string, string>, html: string, redirects: number): PageFacts {
  const contentType = headers['content-type'] ?? ''
  const isHtml = /html/i.test(contentType) || (!contentType && /<html/i.test(html))
  const $ = load(isHtml ? html : '')

  const meta = metaTags($)
  const headings = headingsOf($)
  const jsonLd = jsonLdOf($)
  const links = linksOf($, url)
  const images = imagesOf($)
  const markdownAlternates = markdownAlternatesOf($, url)
  const questions = questionsOf($)
  const scriptCount = $('script:not([type="application/ld+json"])').length
  const text = visibleText($)

  return {
    url,
    status,
    redirects,
    is_html: isHtml,
    x_robots_tag: headers['x-robots-tag'] ?? '',
    header_canonical: parseLinkHeaderCanonical(headers['link'], url),
    title: $('title').length ? squash($('title').first().text()) : undefined,
    description: meta['description'],
    h1_count: headings.filter((h) => h.level === 1).length,
    headings,
    canonicals: $('link[rel~="canonical"]')
      .map((_, el) => $(el).attr('href') ?? '')
      .get(),
    robots_meta: [meta['robots'], meta['googlebot']].filter(Boolean).join(', '),
    lang: $('html').attr('lang')?.trim() || undefined,
    hreflang: $('link[rel~="alternate"][hreflang]')
      .map((_, el) => ({ lang: $(el).attr('hreflang') ?? '', href: $(el).attr('href') ?? '' }))
      .get(),
    viewport: meta['viewport'],
    ...images,
    meta,
    json_ld: jsonLd,
    word_count: words(text.bodyText),
    paragraphs: text.paragraphs,
    questions,
    ...links,
    markdown_alternates: markdownAlternates,
    ...authorAndDate($, meta, jsonLd),
    numeric_sentences: text.numericSentences,
    script_count: scriptCount,
  }
}

export function countWords(text: string): number {
  return words(text)
}
