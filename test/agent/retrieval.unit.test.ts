import { describe, expect, it } from 'vitest'
import { Bm25Index } from '../../src/agent/bm25.ts'
import { buildKnowledgeBase, formatEuro, loadPassages } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import { clip } from '../../src/agent/responder/types.ts'
import { terms } from '../../src/agent/text.ts'
import { loadPricing } from '../../src/public/pricing.ts'
import type { Locale } from '../../src/sites/tables.ts'

const kb = buildKnowledgeBase()
const input = (locale: Locale, message: string) => ({
  locale,
  message,
  pagePath: undefined,
  capabilities: { booking: true, booking_url: 'https://x.test/demo', lead: true, handoff: true },
  handoff: 'none' as const,
  persona: undefined,
  siteName: 'Test',
  history: async () => [],
})

describe('stemming per language', () => {
  it('reduces inflected forms to one stem and drops stop words', () => {
    expect(terms('prices pricing priced', 'en')).toEqual(terms('price price price', 'en'))
    expect(terms('Preise Preis', 'de')[0]).toBe(terms('Preis', 'de')[0])
    expect(terms('domaines domaine', 'fr')[0]).toBe(terms('domaine', 'fr')[0])
    expect(terms('what is the price of the plan', 'en')).toEqual(['price', 'plan'])
    expect(terms("l'offre d'un site", 'fr')).toEqual(terms('offre site', 'fr'))
  })
})

describe('BM25', () => {
  it('ranks the document where a rare query term is frequent first, and scores nothing for unknown terms', () => {
    const index = new Bm25Index([['a', 'b'], ['c', 'c', 'c', 'a'], ['a', 'a', 'd']])
    expect(index.search(['c'], 3).map((r) => r.doc)).toEqual([1])
    expect(index.search(['a', 'd'], 3)[0]!.doc).toBe(2)
    expect(index.search(['zzz'])).toEqual([])
    expect(index.idf('c')).toBeGreaterThan(index.idf('a'))
  })
})

describe('knowledge base', () => {
  it('has every topic in every locale, with relative urls', () => {
    const topics = (l: Locale) => [...new Set(kb.passages(l).map((p) => p.topic))].sort()
    expect(topics('en')).toEqual(['api', 'assistant', 'audit', 'contact', 'demo', 'domains', 'features', 'pricing', 'privacy'])
    expect(topics('de')).toEqual(topics('en'))
    expect(topics('fr')).toEqual(topics('en'))
    for (const l of ['de', 'en', 'fr'] as const) for (const p of kb.passages(l)) expect(p.url).toMatch(new RegExp(`^/${l}/`))
  })

  it('quotes every price from the price list and no other amount', () => {
    const pricing = loadPricing()
    for (const locale of ['de', 'en', 'fr'] as const) {
      const text = loadPassages(locale).map((p) => p.text).join('\n')
      for (const plan of pricing.plans) expect(text).toContain(formatEuro(plan.monthly_price_cents, locale))
      for (const addOn of pricing.add_ons) expect(text).toContain(formatEuro(addOn.monthly_price_cents, locale))
      expect(text).not.toMatch(/\{\{/)
    }
    // A changed price list changes the answers: nothing is written down twice.
    const cheaper = { ...pricing, plans: pricing.plans.map((p) => (p.id === 'pro' ? { ...p, monthly_price_cents: 3900 } : p)) }
    expect(loadPassages('en', cheaper).map((p) => p.text).join('\n')).toContain('€39')
  })

  it('finds the right page for typical questions in each language', () => {
    const cases: Array<[Locale, string, string]> = [
      ['en', 'How much does the Pro plan cost?', 'pricing'],
      ['en', 'How do I connect my own domain?', 'domains'],
      ['en', 'Do you have webhooks?', 'api'],
      ['de', 'Was kostet der Tarif Plus?', 'pricing'],
      ['de', 'Wie funktioniert das SEO-Audit?', 'audit'],
      ['de', 'Wo werden meine Daten gespeichert?', 'privacy'],
      ['fr', 'Combien coûte la formule Max ?', 'pricing'],
      ['fr', 'Comment réserver une démo ?', 'demo'],
      ['fr', 'Comment connecter mon domaine ?', 'domains'],
    ]
    for (const [locale, question, topic] of cases) expect(kb.search(locale, question, 1)[0]?.passage.topic, question).toBe(topic)
  })

  it('answers within 1500 characters for every passage-sized question', () => {
    for (const locale of ['de', 'en', 'fr'] as const) {
      for (const p of kb.passages(locale)) {
        const plan = planTurn(kb, input(locale, `${p.title} ${p.text}`))
        expect(plan.reply.length).toBeLessThanOrEqual(1500)
        expect((plan.actions ?? []).length).toBeLessThanOrEqual(1)
        expect((plan.suggestions ?? []).length).toBeLessThanOrEqual(1)
      }
    }
  })

  it('clips long text at a sentence or word boundary', () => {
    const long = 'This is one sentence. '.repeat(100)
    const clipped = clip(long, 100)
    expect(clipped.length).toBeLessThanOrEqual(100)
    expect(clipped.endsWith('.')).toBe(true)
    expect(clip('word '.repeat(400), 50).length).toBeLessThanOrEqual(50)
  })
})
