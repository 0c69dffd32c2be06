import { describe, expect, it } from 'vitest'
import { buildKnowledgeBase, formatEuro } from '../../../src/agent/knowledge.ts'
import { planTurn } from '../../../src/agent/responder/builtin.ts'
import type { TurnPlan } from '../../../src/agent/responder/types.ts'
import { LOCALES, type Locale } from '../../../src/domain/locales.ts'
import { turnInput } from '../turn-input.ts'
import {
  FRESH,
  type FreshPersona,
  HELD_OUT,
  type Kind,
  type Persona,
  type PersonaCase,
  type PersonaSets,
  TUNED,
  toCases,
} from './personas/cases.ts'
import { de } from './personas/de.ts'
import { deFresh } from './personas/de-fresh.ts'
import { en } from './personas/en.ts'
import { enFresh } from './personas/en-fresh.ts'
import { fr } from './personas/fr.ts'
import { frFresh } from './personas/fr-fresh.ts'
import { inventedFacts } from './grounding.ts'

/**
 * The persona evaluation: every question straight through the built-in responder (no network, a
 * few milliseconds for the lot), on a site that offers booking, leads and a person. Tuning looked
 * at the tuned personas only; the held-out personas' score is the one that says whether the
 * assistant understands new wordings. Prints both figures per language and the misses by kind
 * (held-out misses without their wording unless EVAL_SHOW_HELD_OUT=1).
 */
const kb = buildKnowledgeBase()
const sets: PersonaSets = { en, de, fr }
const fresh = { en: enFresh, de: deFresh, fr: frFresh }
const pricing = kb.pricing

const refusal: Record<Locale, RegExp> = {
  en: /can't answer that for sure|don't have reliable information/i,
  de: /nicht sicher beantworten|keine gesicherte Information/i,
  fr: /pas vous répondre avec certitude|pas d'information fiable/i,
}
/** An honest "we don't offer that" or "I am not certain about that part". */
const honestNo: Record<Locale, RegExp> = {
  en: /we don't offer|isn't something we offer|not something we offer|not part of|no such|can't say for certain|not certain/i,
  de: /bieten wir nicht|nicht im Angebot|gehört nicht|kann ich nicht sicher sagen|nicht sicher/i,
  fr: /ne proposons pas|ne fait pas partie|pas dans notre offre|ne peux pas dire avec certitude|pas certain/i,
}
const MONEY = /€/

const space = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ')

function render(token: string, locale: Locale): string {
  return token.replace(/\{(price|yearly|addon):([a-z_]+)\}/g, (_m, kind: string, id: string) => {
    if (kind === 'addon') return formatEuro(pricing.add_ons.find((a) => a.id === id)!.monthly_price_cents, locale)
    const plan = pricing.plans.find((p) => p.id === id)!
    return formatEuro(kind === 'price' ? plan.monthly_price_cents : plan.yearly_price_cents, locale)
  })
}

const contains = (text: string, entry: string, locale: Locale) =>
  entry.split('|').some((alt) =>
    space(text)
      .toLowerCase()
      .includes(space(render(alt, locale)).toLowerCase()),
  )

const firstSentence = (text: string) => /^[\s\S]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text

export function misses(c: PersonaCase, locale: Locale, plan: TurnPlan): string[] {
  const out: string[] = []
  const reply = plan.reply
  const refused = refusal[locale].test(reply)
  const action = plan.actions?.[0]
  switch (c.kind) {
    case 'person':
      if (!plan.requestHandoff) out.push('no hand-off')
      break
    case 'demo':
      if (!plan.actions?.some((a) => a.type === 'open_booking')) out.push(`action ${action?.type ?? 'none'}, not booking`)
      break
    case 'nope':
    case 'offtopic':
      if (MONEY.test(reply)) out.push('quotes an amount')
      if (plan.requestHandoff) out.push('started a hand-off')
      if (!refused && !honestNo[locale].test(reply)) out.push('answers as if offered')
      break
    default:
      if (plan.requestHandoff) out.push('started a hand-off')
      if (refused) out.push('refused an answerable question')
  }
  for (const fact of c.first ?? [])
    if (!contains(firstSentence(reply), fact, locale)) out.push(`first sentence lacks "${render(fact, locale)}"`)
  for (const fact of c.has ?? []) if (!contains(reply, fact, locale)) out.push(`lacks "${render(fact, locale)}"`)
  for (const fact of c.not ?? []) if (contains(reply, fact, locale)) out.push(`says "${render(fact, locale)}"`)
  return out
}

interface Result {
  locale: Locale
  persona: Persona | FreshPersona
  c: PersonaCase
  plan: TurnPlan
  misses: string[]
  invented: string[]
}

const results: Result[] = LOCALES.flatMap((locale) =>
  [...(Object.keys(sets[locale]) as Persona[]), ...FRESH].flatMap((persona) =>
    toCases(persona in fresh[locale] ? fresh[locale][persona as FreshPersona] : sets[locale][persona as Persona]).map((c) => {
      const plan = planTurn(kb, turnInput(locale, c.q))
      return { locale, persona, c, plan, misses: misses(c, locale, plan), invented: inventedFacts(plan.reply, locale, kb, c.q) }
    }),
  ),
)

const rate = (list: Result[]) => list.filter((r) => r.misses.length === 0 && r.invented.length === 0).length / list.length
const pct = (n: number) => `${(n * 100).toFixed(1)} %`
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}
const of = (locale: Locale, personas: readonly (Persona | FreshPersona)[]) =>
  results.filter((r) => r.locale === locale && personas.includes(r.persona))
const showHeldOut = process.env.EVAL_SHOW_HELD_OUT === '1'
/** The held-out score every language must keep: the 92 % the assistant's third pass set out to reach. Never lowered. */
const HELD_OUT_FLOOR = 0.92
/** The same for the personas written from the landing page alone. */
const FRESH_FLOOR = 0.85

const report = [
  'sales assistant, persona evaluation (tuned personas | held-out personas | personas written from the landing page, tuned on):',
  ...LOCALES.map(
    (l) =>
      `  ${l}: ${pct(rate(of(l, TUNED)))} (${of(l, TUNED).length}) | ${pct(rate(of(l, HELD_OUT)))} (${of(l, HELD_OUT).length}) | ${pct(rate(of(l, FRESH)))} (${of(l, FRESH).length})`,
  ),
  `  median reply ${median(results.map((r) => r.plan.reply.length))} characters; invented facts ${results.filter((r) => r.invented.length).length}`,
  '  misses by kind (tuned | held-out | landing page):',
  ...(['recommend', 'compare', 'how', 'can', 'when', 'price', 'person', 'demo', 'compound', 'nope', 'offtopic'] as Kind[]).map((k) => {
    const count = (ps: readonly (Persona | FreshPersona)[]) =>
      results.filter((r) => r.c.kind === k && ps.includes(r.persona) && (r.misses.length || r.invented.length)).length
    return `    ${k}: ${count(TUNED)} | ${count(HELD_OUT)} | ${count(FRESH)}`
  }),
  ...results
    .filter((r) => r.misses.length || r.invented.length)
    .map((r) =>
      !HELD_OUT.includes(r.persona as Persona) || showHeldOut
        ? `  miss [${r.locale} ${r.persona} ${r.c.kind}] ${r.c.q}: ${[...r.misses, ...r.invented].join('; ')}\n    → ${r.plan.reply}`
        : `  miss [${r.locale} held-out ${r.c.kind}]: ${[...r.misses, ...r.invented].join('; ')}`,
    ),
].join('\n')

describe('sales assistant, persona evaluation', () => {
  it('has at least 300 questions per language from at least ten personas, half of them held out', () => {
    console.log(report)
    for (const locale of LOCALES) {
      expect(results.filter((r) => r.locale === locale).length).toBeGreaterThanOrEqual(300)
      expect(Object.keys(sets[locale]).length).toBeGreaterThanOrEqual(10)
    }
    expect(HELD_OUT.length).toBe(TUNED.length)
  })

  it('keeps the held-out personas’ score at 92 % or more in every language', () => {
    for (const locale of LOCALES) expect(rate(of(locale, HELD_OUT)), locale).toBeGreaterThanOrEqual(HELD_OUT_FLOOR)
  })

  it('keeps the score of the personas written from the landing page alone at its floor in every language', () => {
    for (const locale of LOCALES) expect(rate(of(locale, FRESH)), locale).toBeGreaterThanOrEqual(FRESH_FLOOR)
  })

  it('invents no fact: every amount, number and plan name comes from the price list or the knowledge base', () => {
    expect(results.flatMap((r) => r.invented.map((i) => `[${r.locale}] ${r.c.q}: ${i}`))).toEqual([])
  })

  it('keeps the median reply at 400 characters or less, and every reply within the limit', () => {
    expect(median(results.map((r) => r.plan.reply.length))).toBeLessThanOrEqual(400)
    for (const r of results) expect(r.plan.reply.length).toBeLessThanOrEqual(1500)
  })
})
