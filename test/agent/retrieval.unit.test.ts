import { describe, expect, it } from 'vitest'
import { Bm25Index } from '../../src/agent/bm25.ts'
import { buildKnowledgeBase, formatEuro, loadPassages } from '../../src/agent/knowledge.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import { addOnWording, planWording } from '../../src/agent/responder/catalog.ts'
import { plansMentioned } from '../../src/agent/responder/plan-mentions.ts'
import { clip, SHORT_REPLY } from '../../src/agent/responder/types.ts'
import { frenchTypography, terms } from '../../src/agent/text.ts'
import { loadPricing } from '../../src/domain/accounts/plans.ts'
import type { Locale } from '../../src/domain/locales.ts'
import { turnInput } from './turn-input.ts'

const kb = buildKnowledgeBase()

describe('stemming per language', () => {
  it('reduces inflected forms to one stem and drops stop words', () => {
    expect(terms('prices pricing priced', 'en')).toEqual(terms('price price price', 'en'))
    expect(terms('Preise Preis', 'de')[0]).toBe(terms('Preis', 'de')[0])
    expect(terms('domaines domaine', 'fr')[0]).toBe(terms('domaine', 'fr')[0])
    expect(terms('what is the price of the plan', 'en')).toEqual(['price', 'plan'])
    expect(terms("l'offre d'un site", 'fr')).toEqual(terms('offre site', 'fr'))
  })
})

describe('typography per locale', () => {
  it('formats euros as each language writes them, with no-break spaces', () => {
    expect(formatEuro(4900, 'en')).toBe('€49')
    expect(formatEuro(47040, 'en')).toBe('€470.40')
    expect(formatEuro(4900, 'de')).toBe('49\u00a0€')
    expect(formatEuro(47040, 'de')).toBe('470,40\u00a0€')
    expect(formatEuro(4900, 'fr')).toBe('49\u00a0€')
    expect(formatEuro(147040, 'fr')).toBe('1\u202f470,40\u00a0€')
    expect(formatEuro(147040, 'de')).toBe('1.470,40\u00a0€')
  })

  it('puts the French spaces before : ; ! ? and leaves addresses and times alone', () => {
    expect(frenchTypography('Prix : 3 € ; oui ? Bien !')).toBe('Prix\u00a0: 3 €\u202f; oui\u202f? Bien\u202f!')
    expect(frenchTypography('Voir https://example.com à 9:00.')).toBe('Voir https://example.com à 9:00.')
    expect(frenchTypography('L’option « Pro » coûte')).toBe('L’option «\u202fPro\u202f» coûte')
  })

  it('sends French replies with French spacing', () => {
    for (const q of [
      'Combien coûte la formule Pro ?',
      'Quelle est la différence entre Plus et Pro ?',
      'Est-ce que vous proposez un hébergement email ?',
      'Bonjour',
    ]) {
      const reply = planTurn(kb, turnInput('fr', q)).reply
      expect(reply, reply).not.toMatch(/[\p{L}\d)] ?[;!?]|[\p{L}\d)] :/u)
    }
  })
})

describe('plan names in a question', () => {
  it('finds the plans a visitor names, not the everyday words that look like them', () => {
    const cases: Array<[Locale, string, string[]]> = [
      ['en', 'What does the pro plan cost?', ['pro']],
      ['en', 'difference between plus and pro', ['plus', 'pro']],
      ['en', 'Is the audit free?', []],
      ['en', 'What do I get on the free plan?', ['free']],
      ['en', 'Is it 19 euros plus VAT?', []],
      ['de', 'Was kostet Pro pro Monat?', ['pro']],
      ['de', 'Wie viel kostet eine Domain pro Monat?', []],
      ['de', 'Unterschied zwischen Plus und Pro', ['plus', 'pro']],
      ['de', 'Ist das 19 € plus MwSt?', []],
      ['fr', 'Combien coûte la formule Plus ?', ['plus']],
      ['fr', 'Quelle est la formule la plus simple ?', []],
      ['fr', 'différence entre plus et pro', ['plus', 'pro']],
      ['fr', 'Je veux un site pro', []],
      ['fr', 'Combien coûte pro ?', ['pro']],
    ]
    for (const [locale, message, plans] of cases) expect(plansMentioned(message, locale), message).toEqual(plans)
  })
})

describe('per-site knowledge', () => {
  it('answers from a hosted site’s own pages first, citing them, and forgets them on request', () => {
    const local = buildKnowledgeBase()
    local.indexSitePassages('site_bakery', 'en', [
      { title: 'Opening hours', url: '/hours', text: 'The bakery is open Monday to Saturday from 7:00 to 18:00.' },
      { title: 'Cakes to order', url: '/cakes', text: 'Birthday cakes can be ordered three days ahead.' },
    ])
    const onSite = planTurn(local, turnInput('en', 'When is the bakery open?', { siteId: 'site_bakery' }))
    expect(onSite.reply).toMatch(/^The bakery is open Monday to Saturday/)
    expect(onSite.sources).toEqual([{ title: 'Opening hours', url: '/hours' }])
    expect(onSite.passages[0]).toMatchObject({ siteId: 'site_bakery', url: '/hours' })
    // Another site, or another locale, does not see them.
    expect(planTurn(local, turnInput('en', 'When is the bakery open?', { siteId: 'site_other' })).sources).toBeUndefined()
    expect(local.search('de', 'bakery open', { siteId: 'site_bakery' }).some((h) => h.passage.siteId)).toBe(false)
    // Platform questions still find the platform's answers on the site.
    expect(planTurn(local, turnInput('en', 'How do I connect my own domain?', { siteId: 'site_bakery' })).sources?.[0]?.url).toBe(
      '/en/domains',
    )
    local.removeSitePassages('site_bakery')
    expect(planTurn(local, turnInput('en', 'When is the bakery open?', { siteId: 'site_bakery' })).sources).toBeUndefined()
  })
})

describe('BM25', () => {
  it('ranks the document where a rare query term is frequent first, and scores nothing for unknown terms', () => {
    const index = new Bm25Index([
      ['a', 'b'],
      ['c', 'c', 'c', 'a'],
      ['a', 'a', 'd'],
    ])
    expect(index.search(['c'], 3).map((r) => r.doc)).toEqual([1])
    expect(index.search(['a', 'd'], 3)[0]!.doc).toBe(2)
    expect(index.search(['zzz'])).toEqual([])
    expect(index.idf('c')).toBeGreaterThan(index.idf('a'))
    // Coverage: the share of the query's weight the document holds; an unknown word weighs the most.
    expect(index.search(['c', 'a'], 3)[0]!.coverage).toBeCloseTo(1)
    expect(index.search(['c', 'zzz'], 3)[0]!.coverage).toBeLessThan(0.5)
  })

  it('weighs a query’s subject apart from the absent terms the caller reads as its setting', () => {
    const index = new Bm25Index([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ])
    const [hit] = index.search(['a', 'b', 'everyday', 'brand'], 1, undefined, (term) => term === 'everyday')
    const held = index.idf('a') + index.idf('b')
    const absent = index.idf('brand')
    expect(hit!.coverage).toBeCloseTo(held / (held + 2 * absent))
    expect(hit!.unknown).toBeCloseTo((2 * absent) / (held + 2 * absent))
    expect(hit!.setting).toBeCloseTo(absent / (held + 2 * absent))
    // The subject leaves the setting out: "brand" is all it lacks.
    expect(hit!.subjectCoverage).toBeCloseTo(held / (held + absent))
    expect(hit!.subjectUnknown).toBeCloseTo(absent / (held + absent))
    // Without a reader of settings, the subject is the whole query.
    const [plain] = index.search(['a', 'b', 'everyday'], 1)
    expect(plain!.setting).toBe(0)
    expect(plain!.subjectCoverage).toBeCloseTo(plain!.coverage)
  })
})

describe('knowledge base', () => {
  it('has every topic in every locale, with relative urls', () => {
    const topics = (l: Locale) => [...new Set(kb.passages(l).map((p) => p.topic))].sort()
    expect(topics('en')).toEqual([
      'account',
      'api',
      'assistant',
      'audit',
      'billing',
      'contact',
      'data',
      'demo',
      'design',
      'domains',
      'features',
      'media',
      'pricing',
      'privacy',
      'statistics',
    ])
    expect(topics('de')).toEqual(topics('en'))
    expect(topics('fr')).toEqual(topics('en'))
    for (const l of ['de', 'en', 'fr'] as const) for (const p of kb.passages(l)) expect(p.url).toMatch(new RegExp(`^/${l}/`))
    // The same sections in every language: a German visitor is not told less than an English one.
    const sections = (l: Locale) => kb.passages(l).map((p) => `${p.topic}:${p.url.slice(3)}`)
    expect(sections('de')).toEqual(sections('en'))
    expect(sections('fr')).toEqual(sections('en'))
  })

  it('keeps every passage short enough to be a whole answer', () => {
    for (const l of ['de', 'en', 'fr'] as const)
      for (const p of kb.passages(l)) expect(p.text.length, p.title).toBeLessThanOrEqual(SHORT_REPLY)
  })

  it('answers every suggestion it offers', () => {
    const unanswered: string[] = []
    for (const l of ['de', 'en', 'fr'] as const) {
      for (const p of kb.passages(l)) {
        if (!p.suggestion) continue
        const plan = planTurn(kb, turnInput(l, p.suggestion.prompt))
        if (!plan.sources?.length && !plan.requestHandoff) unanswered.push(`${l}: ${p.suggestion.prompt}`)
      }
    }
    expect(unanswered).toEqual([])
  })

  it('quotes every price from the price list and no other amount', () => {
    const pricing = loadPricing()
    for (const locale of ['de', 'en', 'fr'] as const) {
      const text = loadPassages(locale)
        .map((p) => p.text)
        .join('\n')
      for (const plan of pricing.plans) expect(text).toContain(formatEuro(plan.monthly_price_cents, locale))
      for (const addOn of pricing.add_ons) expect(text).toContain(formatEuro(addOn.monthly_price_cents, locale))
      expect(text).not.toMatch(/\{\{/)
    }
    // A changed price list changes the answers: nothing is written down twice.
    const cheaper = {
      ...pricing,
      plans: pricing.plans.map((p) => (p.id === 'pro' ? { ...p, monthly_price_cents: 3900, yearly_price_cents: 37440 } : p)),
    }
    expect(
      loadPassages('en', cheaper)
        .map((p) => p.text)
        .join('\n'),
    ).toContain('€39')
    const cheaperKb = buildKnowledgeBase(cheaper)
    expect(planTurn(cheaperKb, turnInput('en', 'What does Pro cost?')).reply).toMatch(/^Pro costs €39 a month, or €374\.40 a year/)
  })

  it('has wording for every plan and add-on of the price list, in every language', () => {
    const pricing = loadPricing()
    expect(Object.keys(planWording).sort()).toEqual(pricing.plans.map((p) => p.id).sort())
    expect(Object.keys(addOnWording).sort()).toEqual(pricing.add_ons.map((a) => a.id).sort())
    for (const a of pricing.add_ons) expect(addOnWording[a.id]!.name.en).toBe(a.name)
    // German and French lists name add-ons in their own language.
    const de = loadPassages('de')
      .map((p) => p.text)
      .join('\n')
    expect(de).toContain('- Zusätzliche Domain: 3\u00a0€ pro Monat')
    expect(de).not.toContain('Extra domain')
    const fr = loadPassages('fr')
      .map((p) => p.text)
      .join('\n')
    expect(fr).toContain('- Domaine supplémentaire\u00a0: 3\u00a0€ par mois')
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
    for (const [locale, question, topic] of cases) expect(kb.search(locale, question, { limit: 1 })[0]?.passage.topic, question).toBe(topic)
  })

  it('answers within 1500 characters for every passage-sized question', () => {
    for (const locale of ['de', 'en', 'fr'] as const) {
      for (const p of kb.passages(locale)) {
        const plan = planTurn(kb, turnInput(locale, `${p.title} ${p.text}`))
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
