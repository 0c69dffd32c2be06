import { describe, expect, it } from 'vitest'
import { Analyzer, editDistance } from '../../src/agent/analyzer.ts'
import { CharGramIndex, fourLetterGrams, spelledIn } from '../../src/agent/char-grams.ts'
import { isCommonWord } from '../../src/agent/common-words.ts'
import { buildKnowledgeBase, choose, CLOSE, formatEuro, type Hit, type Passage } from '../../src/agent/knowledge.ts'
import { phrases } from '../../src/agent/phrases.ts'
import { planTurn } from '../../src/agent/responder/builtin.ts'
import { asksHowItWorks, splitQuestions } from '../../src/agent/responder/intent.ts'
import { type Needs, readNeeds, recommend } from '../../src/agent/responder/recommend.ts'
import { fold, terms } from '../../src/agent/text.ts'
import type { Locale } from '../../src/domain/locales.ts'
import { turnInput } from './turn-input.ts'

/** How the knowledge index reads visitors' words: stems, accents, the lexicon, compounds, misspellings. */
const kb = buildKnowledgeBase()
const top = (locale: Locale, q: string) => kb.search(locale, q, { limit: 1 })[0]?.passage.title

describe('words and their meaning', () => {
  it('folds accents and ß, so words typed without them are the same word', () => {
    expect(fold('résiliation')).toBe('resiliation')
    expect(fold('Straße')).toBe('Strasse')
    expect(terms('resilier', 'fr')).toEqual(terms('résilier', 'fr'))
    expect(terms('kuendigung', 'de')).toEqual(terms('Kündigung', 'de'))
  })

  it('reads the words of one meaning as one term, phrases before stop words', () => {
    expect(terms('how much', 'en')).toEqual(terms('price', 'en'))
    expect(terms('cost', 'en')).toEqual(terms('price', 'en'))
    expect(terms('quit', 'en')).toEqual(terms('cancel', 'en'))
    expect(terms('terminate', 'en')).toEqual(terms('cancel', 'en'))
    expect(terms('url', 'en')).toEqual(terms('domain', 'en'))
    expect(terms('wie viel', 'de')).toEqual(terms('Preis', 'de'))
    expect(terms('Vertragslaufzeit', 'de')).toEqual(terms('kündigen', 'de'))
    expect(terms('combien de', 'fr')).toEqual(terms('limite', 'fr'))
    expect(terms('combien ça coûte', 'fr')).toEqual(terms('prix', 'fr'))
    // "email address" is about email, "address" alone about a domain.
    expect(terms('email address', 'en')).toEqual(terms('email', 'en'))
    // Bare numbers say nothing about a topic.
    expect(terms('5 websites', 'en')).toEqual(terms('websites', 'en'))
  })

  it('splits German compounds into the words a collection knows, in passages and questions', () => {
    const analyzer = new Analyzer('de', ['Eine weitere Domain kostet 3 € im Monat.', 'Support gibt es werktags.'])
    expect(analyzer.query('Domainkosten')).toEqual(expect.arrayContaining([...terms('Domain', 'de'), ...terms('Kosten', 'de')]))
    expect(analyzer.index('Domainkosten')).toEqual(expect.arrayContaining([...terms('Domain', 'de'), ...terms('Kosten', 'de')]))
    expect(analyzer.query('Kaffeemaschine')).toEqual(terms('Kaffeemaschine', 'de'))
  })

  it('reads a misspelt word as the known word it is nearest to, but not a word of another meaning', () => {
    const analyzer = new Analyzer('en', [
      'Connect your own domain.',
      'Prices are net.',
      'Paying yearly saves money.',
      'Blocks adapt to phones.',
      'The dashboard shows your sites.',
    ])
    expect(analyzer.query('domian')).toEqual(analyzer.query('domain'))
    expect(analyzer.query('anually')).toEqual(analyzer.query('yearly'))
    expect(analyzer.query('prce')).toEqual(analyzer.query('price'))
    // A stop word misspelt is still a stop word.
    expect(analyzer.query('wich')).toEqual([])
    // Another first letter, or a changed letter in a four-letter word, is another word.
    expect(analyzer.query('iphone')).toEqual(terms('iphone', 'en'))
    expect(analyzer.query('shop')).toEqual(terms('shop', 'en'))
    expect(editDistance('domian', 'domain', 2)).toBe(1)
    expect(editDistance('unlimted', 'unlimited', 2)).toBe(1)
    expect(editDistance('abc', 'xyz', 1)).toBe(2)
  })

  it('leaves out a trade the collection never names, and keeps one it does', () => {
    const analyzer = new Analyzer('en', ['Templates for a bakery or a restaurant.', 'Prices are net.'])
    expect(analyzer.query('as a florist, what are your prices')).toEqual(analyzer.query('what are your prices'))
    expect(analyzer.query('a template for my bakery')).toEqual(expect.arrayContaining(terms('bakery', 'en')))
    // Pieces of contractions and hedges carry no topic.
    expect(analyzer.query("they're wondering about prices, maybe")).toEqual(analyzer.query('prices'))
  })
})

describe('understanding questions in visitors’ words', () => {
  it('finds the answer to paraphrased, colloquial and misspelt questions in every language', () => {
    const cases: Array<[Locale, string, string]> = [
      ['en', 'am i locked in for a year', 'Plans and prices: Cancellation'],
      ['en', 'how much do I save paying anually', 'Plans and prices: Yearly billing discount'],
      ['en', 'which dns entries do I need', 'Domains and SSL: DNS records'],
      ['de', 'bin ich ein jahr lang gebunden', 'Tarife und Preise: Kündigung'],
      ['de', 'wann ist der support erreichbar', 'Kontakt und Support'],
      ['de', 'was kostet eine Jahreszahlung weniger', 'Tarife und Preise: Rabatt bei jährlicher Zahlung'],
      ['fr', 'je peux resilier quand je veux', 'Formules et tarifs: Résiliation'],
      ['fr', 'ils sont où vos serveurs', 'Protection des données: Où les données sont stockées'],
      ['fr', 'mon propre domainne avec la formule gratuite', 'Domaines et SSL'],
      // Visitors' words for what the knowledge answers: "when we are open" on public holidays.
      ['en', "can my customers see when we're open on bank holidays", 'Design and themes: Opening hours'],
      ['de', 'können meine kunden sehen wann wir an feiertagen offen haben', 'Design und Farben: Öffnungszeiten'],
      ['fr', 'mes clients peuvent voir quand on est ouvert les jours fériés ?', "Design et thèmes: Horaires d'ouverture"],
      // A change of plan part-way through the month, and when a cancellation applies.
      [
        'en',
        'If I move up to a bigger plan halfway through the month, do I pay the whole month again?',
        'Plans and prices: Upgrades and downgrades',
      ],
      ['de', 'wenn ich mitten im Monat auf einen größeren Tarif wechsle, zahle ich dann doppelt?', 'Tarife und Preise: Tarif wechseln'],
      ['fr', 'si je passe à une formule plus chère en cours de mois, je paie le mois entier ?', 'Formules et tarifs: Changer de formule'],
      ['de', 'ab wann gilt eine Kündigung?', 'Tarife und Preise: Kündigung'],
      ['en', 'how long does it take until my own domain works?', 'Domains and SSL: Connecting your own domain'],
      ['fr', "que deviennent mes données si j'arrête de payer ?", 'Formules et tarifs: Résiliation'],
      ['de', 'kann ich eine Seite im Menü verstecken?', 'Design und Farben: Navigation, Fußzeile und Handys'],
    ]
    for (const [locale, q, title] of cases) expect(top(locale, q), q).toBe(title)
    expect(planTurn(kb, turnInput('fr', 'je peux créer des sous-pages ?')).reply).toMatch(/un niveau de sous-pages/)
  })

  it('answers an overview question with an overview', () => {
    expect(planTurn(kb, turnInput('en', 'tell me about the plans')).reply).toMatch(/^There are five plans: Free .*Lite .*Plus .*Pro .*Max/)
    expect(planTurn(kb, turnInput('de', 'was bieten Sie an')).reply).toMatch(/^Wir bieten einen Website-Baukasten/)
    expect(planTurn(kb, turnInput('fr', 'parlez-moi des formules')).reply).toMatch(/^Il existe cinq formules/)
  })

  it('reads a question by its letters too: a compound or an ending the terms miss still resembles its stored question', () => {
    const index = new CharGramIndex(
      [
        { doc: 0, text: 'Kann ich eine Bildergalerie zeigen?' },
        { doc: 1, text: 'Wie verbinde ich meine eigene Domain?' },
      ],
      'de',
    )
    expect(index.nearest('geht eine Galerie mit Bildern')?.doc).toBe(0)
    expect(index.nearest('Domains verbinden')?.doc).toBe(1)
    expect(index.nearest('Wie verbinde ich meine eigene Domain?')!.similarity).toBeCloseTo(1, 5)
    expect(index.nearest('Domains verbinden')!.similarity).toBeLessThan(1)
    expect(index.nearest('xyz')).toBeUndefined()
    expect(spelledIn('Bildergalerie', fourLetterGrams('Der Block Galerie zeigt bis zu 24 Bilder'))).toBeGreaterThan(0.5)
    expect(spelledIn('Shopify', fourLetterGrams('Die REST-API und Webhooks'))).toBe(0)
    // A passage both readings point to answers, with a word that it may not cover everything.
    expect(planTurn(kb, turnInput('de', 'können wir öffnungszeiten auf die seite stellen')).reply).toMatch(
      /Öffnungszeiten.*nicht sicher sagen/s,
    )
    expect(planTurn(kb, turnInput('fr', 'comment on reçoit nos factures')).reply).toMatch(/facture/)
    // A word the knowledge base does not know keeps the refusal, however alike the rest is, unless the
    // passage spells it out ("französischsprachige" inside a passage about French).
    expect(planTurn(kb, turnInput('de', 'kann die seite für französischsprachige patienten auf französisch erscheinen?')).reply).toMatch(
      /Französisch/,
    )
    expect(planTurn(kb, turnInput('de', 'Gibt es eine Schnittstelle zu Shopify?')).reply).toMatch(/nicht sicher beantworten/)
  })

  it('reads asking how to bring a colleague in as a question, not as a request for a person', () => {
    expect(planTurn(kb, turnInput('de', 'wie hole ich eine Kollegin ins Konto?')).requestHandoff).toBe(false)
    expect(planTurn(kb, turnInput('de', 'wie kann ich mit einem Menschen sprechen?')).requestHandoff).toBe(true)
    expect(planTurn(kb, turnInput('fr', 'comment je peux parler à quelqu’un ?')).requestHandoff).toBe(true)
    expect(top('fr', 'comment marchent les modèles ?')).toBe('Design et thèmes: Modèles par activité')
  })

  it('reads the free plan in each language’s own word for free beside a word for plan', () => {
    expect(planTurn(kb, turnInput('de', 'reicht der kostenlose Tarif für einen kleinen Verein?')).reply).toMatch(/^Free umfasst/)
    expect(planTurn(kb, turnInput('fr', 'la formule gratuite suffit pour une petite association ?')).reply).toMatch(/^Free comprend/)
    expect(planTurn(kb, turnInput('de', 'ist die Einrichtung kostenlos?')).reply).not.toMatch(/^Free umfasst/)
  })

  it('answers how paying works with how it works, and what it costs with the prices', () => {
    const reply = (locale: Locale, q: string) => planTurn(kb, turnInput(locale, q)).reply
    expect(reply('en', 'how does paying work, monthly by card?')).toContain('Stripe')
    expect(reply('de', 'wie funktioniert das bezahlen, monatlich per karte?')).toContain('Stripe')
    expect(reply('fr', 'comment ça marche le paiement, par carte chaque mois ?')).toContain('Stripe')
    expect(reply('en', 'how does paying monthly work, how much is Pro?')).toMatch(/€49/)
    expect(reply('de', 'wie läuft das mit dem bezahlen, was kostet Pro?')).toMatch(/49\s€/)
    expect(asksHowItWorks('how does paying work, monthly by card?', 'en')).toBe(true)
    expect(asksHowItWorks('how does it work, and how much is it?', 'en')).toBe(false)
    expect(asksHowItWorks('wie funktioniert das, was kostet es?', 'de')).toBe(false)
    expect(asksHowItWorks('comment ça marche, c’est cher ?', 'fr')).toBe(false)
    expect(asksHowItWorks('comment ça marche, la formule est chère ?', 'fr')).toBe(false)
  })

  it('reads a language’s speakers as the language, looking before anyone sees as the preview, only looking as a role, and a Google check as the audit', () => {
    expect(planTurn(kb, turnInput('fr', 'le site peut-il exister en anglais pour nos clients anglophones ?')).reply).toMatch(
      /allemand, en anglais/,
    )
    expect(planTurn(kb, turnInput('en', 'can I check how the page looks before anyone sees it?')).reply).toMatch(/preview/)
    expect(planTurn(kb, turnInput('de', 'kann meine Mitarbeiterin nur ansehen und nichts ändern?')).reply).toMatch(/Betrachter/)
    expect(planTurn(kb, turnInput('en', 'how does the seo check work')).reply).toMatch(/audit/)
  })

  it('does not answer a members’ area, mailboxes at the own domain or a till as if they were offered', () => {
    const asked: Array<[Locale, string]> = [
      ['en', 'can I have a members area where customers log in'],
      ['en', 'do I get email addresses with my own domain'],
      ['en', 'does it work with my cash register'],
      ['de', 'kann ich einen Mitgliederbereich für meine Kunden machen'],
      ['de', 'bekomme ich E-Mail-Adressen mit meiner Domain'],
      ['de', 'gibt es eine Anbindung an mein Kassensystem'],
      ['fr', 'je peux faire un espace membre pour mes clients'],
      ['fr', "j'ai des adresses e-mail avec mon domaine ?"],
      ['fr', 'ça se connecte à ma caisse enregistreuse ?'],
    ]
    // Declined in the responder's own words: on topic but not known for sure, or off topic.
    for (const [locale, q] of asked) {
      const reply = planTurn(kb, turnInput(locale, q)).reply
      expect(
        [phrases.notSure[locale], phrases.noAnswer[locale]].some((phrase) => reply.startsWith(phrase)),
        `${q} → ${reply}`,
      ).toBe(true)
    }
    // The words stay what they were elsewhere: team members, the own domain, a demo booked.
    expect(top('en', 'how many members can I invite')).toBe('Website builder features: Teams and seats')
    expect(planTurn(kb, turnInput('fr', 'je voudrais prendre rendez-vous pour une démo')).actions?.[0]?.type).toBe('open_booking')
  })

  it('reads a second question after a comma as a question of its own, and answers both', () => {
    expect(splitQuestions('How does it work to bring my domain over, do I need to do something at my old provider first?', 'en')).toEqual([
      'How does it work to bring my domain over',
      'do I need to do something at my old provider first?',
    ])
    expect(splitQuestions('Wie lange dauert das Einrichten, muss ich dafür etwas installieren?', 'de')).toHaveLength(2)
    expect(splitQuestions('Je change souvent mes tarifs, est-ce que je peux le faire moi-même ?', 'fr')).toHaveLength(2)
    // A comma inside one question does not split it.
    expect(splitQuestions('If I cancel, is my site deleted?', 'en')).toHaveLength(1)
    const plan = planTurn(
      kb,
      turnInput('en', 'How does it work to bring my domain over, do I need to do something at my old provider first?'),
    )
    expect(plan.reply.startsWith(phrases.notSure.en), plan.reply).toBe(false)
    expect(
      plan.passages.some((p) => p.topic === 'domains'),
      plan.reply,
    ).toBe(true)
  })

  it('reads the common words no passage holds as the visitor’s own situation, not as what is asked', () => {
    const answered: Array<[Locale, string, string]> = [
      ['en', 'Can customers send me a message from the website when they want flowers for a wedding?', 'Contact forms'],
      [
        'de',
        'Kann ich sehen, wie viele Leute auf die Seite kommen? Aber bitte ohne diesen Cookie-Banner, den find ich furchtbar',
        'Besucherstatistik',
      ],
      ['fr', 'Est-ce que je peux consulter l’historique d’une page pour savoir ce qui a été modifié et quand ?', 'Historique'],
    ]
    for (const [locale, q, title] of answered) {
      const plan = planTurn(kb, turnInput(locale, q))
      expect(plan.passages[0]?.title, `${q} → ${plan.reply}`).toContain(title)
      expect(plan.reply.startsWith(phrases.notSure[locale])).toBe(false)
    }
    // A question mostly about something else, however common its words, is still declined; so is
    // the name of something we do not offer, and a booking system for the site's own customers.
    const declined: Array<[Locale, string]> = [
      ['fr', 'Qui a gagné la Coupe du monde de football ?'],
      ['en', 'is there a referral program'],
      ['en', 'do you have a Shopify integration'],
      ['de', 'koennen die kunden direkt online nen termin buchen? so mit kalender wo sie sehen wann ich frei hab'],
      ['fr', 'est ce que mes clients peuvent prendre rdv direct sur le site en choisissant un creneau ?'],
    ]
    for (const [locale, q] of declined) {
      const plan = planTurn(kb, turnInput(locale, q))
      expect(
        [phrases.notSure[locale], phrases.noAnswer[locale]].some((phrase) => plan.reply.startsWith(phrase)),
        `${q} → ${plan.reply}`,
      ).toBe(true)
      expect(plan.actions?.some((a) => a.type === 'open_booking') ?? false).toBe(false)
    }
  })
  it('reads German verbs with their prefixes and French verb forms as everyday words, and numbers as the visitor’s case', () => {
    expect(isCommonWord('zusammenbasteln', 'de')).toBe(true)
    expect(isCommonWord('umstelle', 'de')).toBe(true)
    expect(isCommonWord('verrechnet', 'de')).toBe(true)
    expect(isCommonWord('visitent', 'fr')).toBe(true)
    expect(isCommonWord('rajouter', 'fr')).toBe(true)
    expect(isCommonWord('3e', 'fr')).toBe(true)
    // Names of what we do not offer stay names.
    for (const [word, locale] of [
      ['shopify', 'en'],
      ['lieferando', 'de'],
      ['terraform', 'de'],
      ['paypal', 'fr'],
    ] as const)
      expect(isCommonWord(word, locale), word).toBe(false)
    const answered: Array<[Locale, string, string]> = [
      ['de', 'gibts da fertige vorlagen für blumenläden oder muss ich alles selber zusammenbasteln', 'Vorlagen'],
      ['de', 'Wie ändere ich die Öffnungszeiten über die Festtage? Nur für die eine Woche', 'Öffnungszeiten'],
      ['en', 'how do i change the colours to match my van, its purple', 'Design'],
      ['fr', 'Combien ça coûte d’ajouter une personne pour mon apprentie ?', 'Équipe'],
    ]
    for (const [locale, q, title] of answered) {
      const plan = planTurn(kb, turnInput(locale, q))
      expect(plan.passages[0]?.title, `${q} → ${plan.reply}`).toContain(title)
      expect(plan.requestHandoff, q).toBe(false)
    }
  })

  it('recommends from needs said with ordinals, cafés, an own name and a sensible option', () => {
    const cases: Array<[Locale, string, Needs]> = [
      ['fr', 'on ouvre peut etre un 3e cafe l’an prochain, je prends quel abonnement ?', { sites: 3 }],
      [
        'de',
        'Ich überleg, noch nen zweiten Salon aufzumachen, der soll ne eigene Seite kriegen. Und so ein Chat wär cool. Was brauch ich dann?',
        { sites: 2, assistant: true },
      ],
      ['en', 'Just need something simple with our own name as the web address. Nothing fancy. Which one?', { domains: 1 }],
      ['en', 'One website, own domain, two to three editors. What would be the most sensible option?', { sites: 1, seats: 3, domains: 1 }],
      // "an assistant" who edits is a person; "a second one" is one site more.
      [
        'en',
        "I'm a coach with a main site and a second one for my workshops, me and an assistant edit them. What should I get?",
        { sites: 2, seats: 2 },
      ],
    ]
    for (const [locale, q, needs] of cases) {
      expect(readNeeds(q, locale), q).toEqual(needs)
      const plan = planTurn(kb, turnInput(locale, q))
      const best = recommend(kb.pricing, needs)!
      expect(plan.reply, q).toContain(formatEuro(best.totalCents, locale))
    }
  })

  it('answers a comparison with another website builder with what we offer, and no verdict', () => {
    for (const [locale, q] of [
      ['en', 'how are you different from wix'],
      ['de', 'Was unterscheidet euch von Jimdo?'],
      ['fr', 'vous êtes mieux que Wix ?'],
    ] as const) {
      const plan = planTurn(kb, turnInput(locale, q))
      // French typography puts no-break spaces before the semicolon and the colon.
      expect(plan.reply.replace(/[\u00a0\u202f]/g, ' ').startsWith(phrases.otherProviders[locale]), plan.reply).toBe(true)
      expect(plan.passages[0]?.topic).toBe('features')
    }
    // Naming another product without comparing is still a question about what we offer.
    expect(planTurn(kb, turnInput('en', 'do you have a Shopify integration')).reply.startsWith(phrases.notSure.en)).toBe(true)
  })

  it('declines services done for the owner, and answers writing the texts with the first draft', () => {
    for (const [locale, q] of [
      ['en', 'do you design logos?'],
      ['en', 'do you do SEO for me, like an agency?'],
      ['de', 'macht ihr auch Logos?'],
      ['fr', 'vous faites aussi les logos ?'],
      // Features of other kinds of builders are not ours, however common their names.
      ['en', 'how much is the newsletter add-on?'],
      ['en', 'can members pay their fees through the site?'],
      ['en', 'can I do video calls with clients through the site?'],
      ['de', 'gibt es einen Blog?'],
      ['fr', 'mes clients peuvent acheter des bons cadeaux ?'],
      ['de', 'was passiert mit unseren Daten, wenn ihr pleite geht?'],
    ] as const) {
      const plan = planTurn(kb, turnInput(locale, q))
      expect(plan.reply.startsWith(phrases.notSure[locale]), `${q} → ${plan.reply}`).toBe(true)
    }
    // Instalments are how paying works; "price list please" on our site asks for our prices.
    expect(planTurn(kb, turnInput('en', 'can I pay in instalments?')).passages[0]?.topic).toBe('billing')
    expect(planTurn(kb, turnInput('en', 'price list please')).reply).toContain(formatEuro(kb.pricing.plans[1]!.monthly_price_cents, 'en'))
    expect(splitQuestions('vous faites aussi les logos ?', 'fr')).toHaveLength(1)
    for (const [locale, q] of [
      ['en', 'can you write the texts for my website?'],
      ['fr', 'vous pouvez écrire les textes de mon site ?'],
    ] as const)
      expect(planTurn(kb, turnInput(locale, q)).passages[0]?.title, q).toMatch(/first draft|premier brouillon/)
  })

  it('answers two things asked together with "and" from their two passages', () => {
    const plan = planTurn(kb, turnInput('en', 'can I show my menu and opening hours?'))
    expect(plan.passages.map((p) => p.title)).toEqual(['Design and themes: Menus and item lists', 'Design and themes: Opening hours'])
    // "What are your opening hours?" is still about our team's.
    expect(planTurn(kb, turnInput('en', 'what are your opening hours?')).passages[0]?.topic).toBe('contact')
  })

  it('offers to book the demo with an answer about it, and declines a booking system for the site’s customers asked in two parts', () => {
    const demo = planTurn(kb, turnInput('en', 'can someone show me how it works? i learn better watching'))
    expect(demo.actions?.[0]?.type, demo.reply).toBe('open_booking')
    const customers = planTurn(
      kb,
      turnInput('en', 'can students book and pay for classes right on my site? like pick a slot in a calendar'),
    )
    expect(customers.actions?.some((a) => a.type === 'open_booking') ?? false, customers.reply).toBe(false)
    expect(customers.reply).not.toMatch(/booking calendar/)
  })
})

describe('confidence that adapts', () => {
  const passage = (title: string, siteId?: string, url = `/${title}`): Passage => ({
    siteId,
    topic: 't',
    title,
    pageTitle: title,
    url,
    text: title,
    keywords: '',
    suggestion: undefined,
    seq: 0,
    questions: [],
    fact: undefined,
  })
  const hit = (p: Passage, score: number, coverage = 1, similarity = 0.3): Hit => ({
    passage: p,
    score,
    coverage,
    similarity,
    unknown: 0,
    setting: 0,
    subjectCoverage: coverage,
    subjectUnknown: 0,
    matchedTerms: 1,
  })
  const a = passage('A')
  const b = passage('B')

  it('answers a clear best match alone', () => {
    expect(choose([hit(a, 10), hit(b, 10 * CLOSE - 1)])).toEqual({ best: hit(a, 10), alternative: undefined })
  })

  it('names a close second candidate, unless the question is one the best passage was written for', () => {
    expect(choose([hit(a, 10), hit(b, 9.5)]).alternative?.passage).toBe(b)
    expect(choose([hit(a, 10, 1, 0.9), hit(b, 9.5)]).alternative).toBeUndefined()
    // A candidate that does not answer for sure, or comes from another source, is not offered.
    expect(choose([hit(a, 10), hit(b, 9.5, 0.2)]).alternative).toBeUndefined()
    expect(choose([hit(a, 10), hit(passage('C', 'site_x'), 9.5)]).alternative).toBeUndefined()
    // Another section of the same page is answered by that page.
    expect(choose([hit(a, 10), hit(passage('A: more', undefined, '/A'), 9.5)]).alternative).toBeUndefined()
  })

  it('prefers a passage far ahead that lacks one word of the question to a confident one far behind', () => {
    expect(choose([hit(a, 11, 0.58), hit(b, 6.6, 0.63)]).best?.passage).toBe(a)
    expect(choose([hit(a, 8, 0.58), hit(b, 6.6, 0.63)]).best?.passage).toBe(b)
    expect(choose([hit(a, 11, 0.4), hit(b, 6.6, 0.63)]).best?.passage).toBe(b)
  })

  it('has nothing to answer with when no passage is confident', () => {
    expect(choose([hit(a, 10, 0.3), hit(b, 1)])).toEqual({ best: undefined, alternative: undefined })
    expect(choose([])).toEqual({ best: undefined, alternative: undefined })
  })

  it('asks which one was meant in one line and offers it as the suggestion', () => {
    const local = buildKnowledgeBase()
    local.indexSitePassages('site_shop', 'en', [
      { title: 'Opening hours', url: '/hours', text: 'The bakery opens at 7:00 and closes at 18:00 on weekdays.' },
      { title: 'Opening hours on holidays', url: '/holidays', text: 'On holidays the bakery opens at 8:00 and closes at 12:00.' },
      { title: 'Cakes', url: '/cakes', text: 'Birthday cakes can be ordered three days ahead.' },
      { title: 'Delivery', url: '/delivery', text: 'We deliver bread to offices in the city centre.' },
      { title: 'Contact', url: '/contact', text: 'Call us or write to us by email.' },
    ])
    const plan = planTurn(local, turnInput('en', 'when does the bakery open', { siteId: 'site_shop' }))
    expect(plan.reply).toMatch(/^The bakery opens at 7:00 and closes at 18:00 on weekdays\. Or did you mean “Opening hours on holidays”\?$/)
    expect(plan.suggestions).toEqual([{ label: 'Opening hours on holidays', prompt: 'Opening hours on holidays' }])
    const holiday = planTurn(local, turnInput('en', 'Opening hours on holidays', { siteId: 'site_shop' }))
    expect(holiday.sources).toEqual([{ title: 'Opening hours on holidays', url: '/holidays' }])
  })
})
