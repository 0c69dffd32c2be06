import { readdirSync, readFileSync } from 'node:fs'
import { loadPricing, type Pricing } from '../public/pricing.ts'
import { LOCALES } from '../sites/settings.ts'
import type { Locale } from '../sites/tables.ts'
import { Bm25Index } from './bm25.ts'
import { terms } from './text.ts'

/**
 * The assistant's knowledge: Markdown files per locale under knowledge/<locale>/. Each file has a
 * small front matter (title, url, topic, optional keywords and suggestion "label | prompt") and is cut into
 * passages at its `## ` headings. Prices are never written in the files: placeholders such as
 * {{plans}} or {{price:pro}} are filled from the same data /api/pricing serves.
 */
export interface Passage {
  topic: string
  title: string
  url: string
  text: string
  /** Words a visitor may use for the file's subject that its text need not contain. */
  keywords: string
  suggestion: { label: string; prompt: string } | undefined
  /** Position in the locale's knowledge base: passages of one page read best in their written order. */
  seq: number
}

export interface KnowledgeBase {
  search(locale: Locale, query: string, limit?: number): Array<{ passage: Passage; score: number }>
  passages(locale: Locale): readonly Passage[]
  /** Every amount (in euro) the price list contains: the only amounts an answer may quote. */
  readonly knownAmounts: ReadonlySet<number>
}

const knowledgeDir = new URL('./knowledge/', import.meta.url)

export function formatEuro(cents: number, locale: Locale): string {
  const whole = cents % 100 === 0
  return new Intl.NumberFormat(locale === 'en' ? 'en-IE' : `${locale}-${locale.toUpperCase()}`, {
    style: 'currency',
    currency: 'EUR',
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(cents / 100).replace(/\u00a0|\u202f/g, ' ')
}

const perMonth: Record<Locale, string> = { de: 'pro Monat', en: 'a month', fr: 'par mois' }
const perYear: Record<Locale, string> = { de: 'pro Jahr bei jährlicher Zahlung', en: 'a year when paid yearly', fr: 'par an en paiement annuel' }

function fillPlaceholders(body: string, pricing: Pricing, locale: Locale, file: string): string {
  return body.replace(/\{\{([a-z_]+)(?::([a-z_]+))?\}\}/g, (_m, name: string, arg: string | undefined) => {
    if (name === 'plans') {
      return pricing.plans
        .map((p) => `- ${p.name}: ${formatEuro(p.monthly_price_cents, locale)} ${perMonth[locale]} (${formatEuro(p.yearly_price_cents, locale)} ${perYear[locale]})`)
        .join('\n')
    }
    if (name === 'addons') {
      return pricing.add_ons.map((a) => `- ${a.name}: ${formatEuro(a.monthly_price_cents, locale)} ${perMonth[locale]}`).join('\n')
    }
    if (name === 'yearly_discount') return String(pricing.yearly_discount_percent)
    if (name === 'price') {
      const plan = pricing.plans.find((p) => p.id === arg)
      if (plan) return formatEuro(plan.monthly_price_cents, locale)
    }
    if (name === 'addon') {
      const addOn = pricing.add_ons.find((a) => a.id === arg)
      if (addOn) return formatEuro(addOn.monthly_price_cents, locale)
    }
    if (name === 'api_requests' && arg) {
      const plan = pricing.plans.find((p) => p.id === arg)
      if (plan) return new Intl.NumberFormat(locale).format(plan.api_requests_per_hour)
    }
    throw new Error(`knowledge file ${file}: unknown placeholder {{${name}${arg ? `:${arg}` : ''}}}`)
  })
}

function parseFile(source: string, file: string): { meta: Record<string, string>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source)
  if (!match) throw new Error(`knowledge file ${file}: missing front matter`)
  const meta: Record<string, string> = {}
  for (const line of match[1]!.split('\n')) {
    const at = line.indexOf(':')
    if (at > 0) meta[line.slice(0, at).trim()] = line.slice(at + 1).trim()
  }
  for (const key of ['title', 'url', 'topic']) if (!meta[key]) throw new Error(`knowledge file ${file}: front matter lacks ${key}`)
  if (!meta['url']!.startsWith('/')) throw new Error(`knowledge file ${file}: url must start with /`)
  return { meta, body: match[2]! }
}

/** Reads and renders one locale's files into passages. */
export function loadPassages(locale: Locale, pricing: Pricing = loadPricing()): Passage[] {
  const dir = new URL(`${locale}/`, knowledgeDir)
  const passages: Passage[] = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
    const { meta, body } = parseFile(readFileSync(new URL(file, dir), 'utf8'), `${locale}/${file}`)
    const [label, prompt] = (meta['suggestion'] ?? '').split('|').map((s) => s.trim())
    const suggestion = label && prompt ? { label, prompt } : undefined
    const rendered = fillPlaceholders(body, pricing, locale, `${locale}/${file}`)
    // The text before the first heading is a passage under the file's title; each section is one more.
    const sections = rendered.split(/^## /m)
    sections.forEach((section, i) => {
      const [heading, ...rest] = i === 0 ? ['', section] : section.split('\n')
      const text = (i === 0 ? section : rest.join('\n')).trim()
      if (!text) return
      passages.push({ seq: passages.length, topic: meta['topic']!, keywords: meta['keywords'] ?? '', title: i === 0 ? meta['title']! : `${meta['title']}: ${heading!.trim()}`, url: meta['url']!, text, suggestion })
    })
  }
  if (passages.length === 0) throw new Error(`knowledge base for ${locale} is empty`)
  return passages
}

/** Builds the ranking index of every locale once; searching is then pure computation. */
export function buildKnowledgeBase(pricing: Pricing = loadPricing()): KnowledgeBase {
  const byLocale = new Map<Locale, { passages: Passage[]; index: Bm25Index }>()
  for (const locale of LOCALES) {
    const passages = loadPassages(locale, pricing)
    // The title counts twice: a heading says what a passage is about more surely than its body.
    const index = new Bm25Index(passages.map((p) => [...terms(p.title, locale), ...terms(p.title, locale), ...terms(p.keywords, locale), ...terms(p.text, locale)]))
    byLocale.set(locale, { passages, index })
  }
  const knownAmounts = new Set<number>([
    ...pricing.plans.flatMap((p) => [p.monthly_price_cents / 100, p.yearly_price_cents / 100]),
    ...pricing.add_ons.map((a) => a.monthly_price_cents / 100),
  ])
  return {
    knownAmounts,
    passages: (locale) => byLocale.get(locale)!.passages,
    search(locale, query, limit = 3) {
      const entry = byLocale.get(locale)!
      return entry.index.search(terms(query, locale), limit).map(({ doc, score }) => ({ passage: entry.passages[doc]!, score }))
    },
  }
}
