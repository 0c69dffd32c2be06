import type { KnowledgeBase } from '../../../src/agent/knowledge.ts'
import { keptMonths, planExtras } from '../../../src/agent/entitlements.ts'
import type { Locale } from '../../../src/domain/locales.ts'

/**
 * Facts an answer states that neither the price list nor the knowledge base holds: an amount that is
 * not a price (or a plan's price plus add-ons), a number no passage of the language contains, a plan
 * name the price list does not have, or a storage or statistics limit given to the wrong plan.
 */
const SEP = /[\u00a0\u202f ]/g
const MONEY: Record<Locale, RegExp> = {
  en: /€(\d[\d,]*(?:\.\d+)?)/g,
  de: /(\d[\d.]*(?:,\d+)?)[\u00a0\u202f ]?€/g,
  fr: /(\d[\d\u00a0\u202f ]*(?:,\d+)?)[\u00a0\u202f ]?€/g,
}
function amount(text: string, locale: Locale): number {
  const raw =
    locale === 'en'
      ? text.replace(/,/g, '')
      : locale === 'de'
        ? text.replace(/\./g, '').replace(',', '.')
        : text.replace(SEP, '').replace(',', '.')
  return Number(raw)
}
const NUMBER: Record<Locale, RegExp> = {
  en: /\d{1,3}(?:,\d{3})+|\d+/g,
  de: /\d{1,3}(?:\.\d{3})+|\d+/g,
  fr: /\d{1,3}(?:[\u00a0\u202f ]\d{3})+|\d+/g,
}
const numberOf = (text: string) => Number(text.replace(/[.,\u00a0\u202f ]/g, ''))

const PLAN_NAMES = new Set(['Free', 'Lite', 'Plus', 'Pro', 'Max'])
const NOT_NAMES = new Set([
  'The',
  'This',
  'That',
  'Each',
  'Every',
  'Your',
  'Which',
  'Any',
  'Paid',
  'A',
  'One',
  'Our',
  'Its',
  'Same',
  'Smaller',
  'Bigger',
  'Cheaper',
  'New',
  'Old',
  'Current',
  'Higher',
  'Lower',
  'Free',
])
const NAMED: Record<Locale, RegExp[]> = {
  en: [/\b([A-Z][a-z]+) plan\b/g],
  de: [/\bTarif „?([A-Z][a-z]+)/g, /\b([A-Z][a-z]+)-Tarif/g],
  fr: [/\bformule «?\s?([A-Z][a-z]+)/g],
}
const UNITS: Record<Locale, { storage: RegExp; kept: RegExp; stats: RegExp }> = {
  en: { storage: /(\d+)\s?(GB|MB)\b/g, kept: /(\d+)\s?(months|days)\b/g, stats: /statistic|stats|visitor/i },
  de: { storage: /(\d+)\s?(GB|MB)\b/g, kept: /(\d+)\s?(Monate|Tage)\b/g, stats: /Statistik|Besucher/i },
  fr: { storage: /(\d+)\s?(Go|Mo|GB|MB)\b/g, kept: /(\d+)\s?(mois|jours)\b/g, stats: /statistique|stats|visite/i },
}

const allowed = new WeakMap<KnowledgeBase, { money: Set<number>; numbers: Map<Locale, Set<number>> }>()
function groundsOf(kb: KnowledgeBase) {
  let g = allowed.get(kb)
  if (g) return g
  const { plans, add_ons } = kb.pricing
  const money = new Set<number>()
  const bases = [0, ...plans.flatMap((p) => [p.monthly_price_cents, p.yearly_price_cents])]
  const add = (base: number, i: number) => {
    if (i === add_ons.length) return void money.add(Math.round(base) / 100)
    for (let k = 0; k <= 12; k++) add(base + k * add_ons[i]!.monthly_price_cents, i + 1)
  }
  for (const b of bases) add(b, 0)
  const extras = planExtras(kb.pricing)
  const listed = [
    kb.pricing.yearly_discount_percent,
    ...plans.flatMap((p) => [p.sites, p.own_domains, p.seats, p.api_requests_per_hour].filter((n): n is number => n !== null)),
    ...Object.values(extras).flatMap((e) => [
      ...(e.storageMb === null ? [] : [e.storageMb, e.storageMb / 1000]),
      'days' in e.statsKept ? e.statsKept.days : e.statsKept.months,
    ]),
  ]
  const numbers = new Map<Locale, Set<number>>()
  for (const locale of ['en', 'de', 'fr'] as Locale[]) {
    const set = new Set<number>(listed)
    for (const p of kb.passages(locale)) for (const m of p.text.matchAll(NUMBER[locale])) set.add(numberOf(m[0]))
    numbers.set(locale, set)
  }
  g = { money, numbers }
  allowed.set(kb, g)
  return g
}

/** The visitor's own numbers ("four of us") may come back in the answer: they are not invented. */
export function inventedFacts(reply: string, locale: Locale, kb: KnowledgeBase, question = ''): string[] {
  const out: string[] = []
  const g = groundsOf(kb)
  const asked = new Set([...question.matchAll(NUMBER[locale])].map((m) => numberOf(m[0])))
  for (const m of reply.matchAll(MONEY[locale])) {
    const value = amount(m[1]!, locale)
    if (!g.money.has(value)) out.push(`invented amount ${m[0]}`)
  }
  // A count of add-ons ("4 × Extra seat") is checked through the amount it comes with, which must be
  // a plan's price plus whole add-ons.
  const withoutMoney = reply.replace(MONEY[locale], ' ').replace(/\b\d{1,2}[\u00a0\u202f ]?×/g, ' ')
  for (const m of withoutMoney.matchAll(NUMBER[locale])) {
    if (!g.numbers.get(locale)!.has(numberOf(m[0])) && !asked.has(numberOf(m[0]))) out.push(`invented number ${m[0]}`)
  }
  for (const re of NAMED[locale])
    for (const m of reply.matchAll(re)) if (!PLAN_NAMES.has(m[1]!) && !NOT_NAMES.has(m[1]!)) out.push(`invented plan ${m[0]}`)
  // A storage or statistics limit said of one plan must be that plan's.
  const extras = planExtras(kb.pricing)
  for (const sentence of reply.split(/(?<=[.!?;:])\s+|\(|\)|, /)) {
    const named = [...PLAN_NAMES].filter((n) => new RegExp(`\\b${n}\\b`).test(sentence))
    if (named.length !== 1) continue
    const plan = extras[named[0]!.toLowerCase() as keyof typeof extras]
    for (const m of sentence.matchAll(UNITS[locale].storage)) {
      const mb = Number(m[1]) * (/G/.test(m[2]!) ? 1000 : 1)
      if (plan.storageMb !== mb) out.push(`storage ${m[0]} said of ${named[0]}`)
    }
    if (UNITS[locale].stats.test(sentence))
      for (const m of sentence.matchAll(UNITS[locale].kept)) {
        const months = /^(days|Tage|jours)$/.test(m[2]!) ? Number(m[1]) / 30 : Number(m[1])
        if (keptMonths(plan.statsKept) !== months) out.push(`statistics kept ${m[0]} said of ${named[0]}`)
      }
  }
  return out
}
