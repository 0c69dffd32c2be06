import { readdirSync, readFileSync } from 'node:fs'
import { loadPricing, type Pricing } from '../domain/accounts/plans.ts'
import { LOCALES } from '../domain/locales.ts'
import type { Locale } from '../domain/locales.ts'
import { Bm25Index } from './bm25.ts'
import { QuestionIndex } from './question-match.ts'
import { joinList } from './phrases.ts'
import { addOnName, planName } from './responder/catalog.ts'
import { Analyzer } from './analyzer.ts'
import { CharGramIndex, fourLetterGrams, spelledIn } from './char-grams.ts'
import { termOf, terms, typeset, words } from './text.ts'
import { isCommonWord } from './common-words.ts'
import { lexicon } from './lexicon.ts'
import { planExtras } from './entitlements.ts'
import { storageText, keptText } from './limits-wording.ts'

/**
 * The assistant's knowledge: Markdown files per locale under knowledge/<locale>/. Each file has a
 * small front matter (title, url, topic, optional keywords and suggestion "label | prompt") and is cut into
 * passages at its `## ` headings. Prices are never written in the files: placeholders such as
 * {{plans}} or {{price:pro}} are filled from the same data /api/pricing serves.
 *
 * Every section (the text before the first heading counts as one) carries the questions visitors
 * ask that it answers, one a line starting with "? ", and the words its answer must hold, on a line
 * starting with "! ". The questions are not part of the passage: the index matches a visitor's
 * question against them as well as against the passage's heading and text.
 *
 * A hosted site's own pages join as passages of that site (`indexSitePassages`); a search for a
 * session on that site ranks them first.
 */
export interface Passage {
  /** The hosted site the passage comes from; undefined for the platform's own knowledge. */
  siteId: string | undefined
  topic: string
  title: string
  /** The title of the page the passage is on (a passage's title adds its section heading). */
  pageTitle: string
  /** The page the passage is on: a path on the site the widget runs on. */
  url: string
  text: string
  /** Words a visitor may use for the file's subject that its text need not contain. */
  keywords: string
  suggestion: { label: string; prompt: string } | undefined
  /** Position in its collection: passages of one page read best in their written order. */
  seq: number
  /** Questions visitors ask that the passage answers (none for a hosted site's pages). */
  questions: readonly string[]
  /** What an answer from this passage must say (the knowledge files' "! " line). */
  fact: string | undefined
}

/** A passage of a hosted site's published page, as the site's indexer hands it over. */
export interface SitePassageInput {
  title: string
  /** The published page: a path starting with /, or its absolute URL (only the path is kept). */
  url: string
  text: string
  keywords?: string
}

export interface Hit {
  passage: Passage
  score: number
  /**
   * Share (0–1) of the question's weight, counted by inverse document frequency, that the passage
   * contains. Words no passage contains weigh the most, so a question about something the
   * knowledge base never mentions ("a discount for nonprofits") scores low however well its
   * common words match.
   */
  coverage: number
  /** Similarity (0–1) of the question to the closest question stored with the passage. */
  similarity: number
  /** Share (0–1) of the question's weight in words no passage of the collection contains. */
  unknown: number
  /**
   * Share (0–1) of the question's weight in common words of the language no passage contains: the
   * visitor's own situation ("photos of my bouquets", "I have no laptop"), not what is asked.
   */
  setting: number
  /** Coverage of the question's weight without its setting. */
  subjectCoverage: number
  /** Share of the question's weight without its setting in words no passage contains: what it asks about that the knowledge base lacks. */
  subjectUnknown: number
  /** How many of the question's distinct terms the passage holds, less those guessed from an everyday word's spelling. */
  matchedTerms: number
}

/**
 * When retrieval counts as an answer. A passage must match the question's words well (BM25 score)
 * and contain most of its weight (coverage): a question whose rare words appear nowhere in the
 * knowledge base ("a discount for nonprofits", "email hosting") is one the assistant cannot
 * answer, however well its common words match some passage.
 */
export const MIN_SCORE = 1.5
export const MIN_COVERAGE = 0.6

export const isConfident = (hit: Hit) => hit.score >= MIN_SCORE && hit.coverage >= MIN_COVERAGE

/**
 * Short of confident, a passage may still be the likely answer to a question worded in a new way.
 * A question about something the knowledge base lacks names it in a word no passage contains
 * ("nonprofits", "PayPal", "iPhone", "Shopify"), or matches one passage on a single word only;
 * a new wording of what it has mostly adds common words of the visitor's own situation ("can I
 * put up photos of my bouquets, like a gallery?"). So: a good match on a good part of the
 * question's subject, when every word of the subject is one the knowledge base knows and the
 * setting is less than half the question, or a strong match well ahead of the next passage when
 * some are not. Such an answer says that it may not cover everything.
 */
export const LIKELY_COVERAGE = 0.35
/** With every word of the subject known. */
export const LIKELY_SCORE = 7
/** A question mostly about its setting ("who won the World Cup?") is not one for us. */
export const LIKELY_SETTING = 0.5
/** A question mostly about its setting still has its answer when this share of its subject, of two words or more, matches. */
export const LIKELY_FULL_SUBJECT = 0.6
/** Or, with a lower score, nearly all of it. */
export const LIKELY_WHOLE_SUBJECT = 0.9
export const LIKELY_WHOLE_SCORE = 5
/** With words the knowledge base does not know, and this far ahead of the next passage. */
export const LIKELY_STRONG_SCORE = 10
export const LIKELY_LEAD = 1.25

export function likely(hits: readonly Hit[]): Hit | undefined {
  const [first, second] = hits
  if (!first) return undefined
  if (first.subjectUnknown === 0) {
    if (first.score >= LIKELY_SCORE && first.setting < LIKELY_SETTING && first.subjectCoverage >= LIKELY_COVERAGE) return first
    // Mostly setting, but a subject of several words, most of it matched.
    if (first.matchedTerms >= 2 && first.subjectCoverage >= LIKELY_FULL_SUBJECT && first.score >= LIKELY_SCORE) return first
    // "How do I change the colours to match my van, it's purple": all of a short subject matched.
    if (first.matchedTerms >= 2 && first.subjectCoverage >= LIKELY_WHOLE_SUBJECT && first.score >= LIKELY_WHOLE_SCORE) return first
  }
  if (first.coverage < LIKELY_COVERAGE || first.score < LIKELY_STRONG_SCORE) return undefined
  return !second || first.score >= LIKELY_LEAD * second.score ? first : undefined
}

/** A second passage scoring at least this share of the best one is as likely meant: the answer asks. */
export const CLOSE = 0.9
/** A question this similar to one stored with the best passage was meant for it: nothing to ask. */
export const SURE_SIMILARITY = 0.75

export interface Choice {
  /** The passage that answers: the first confident hit (a hosted site's own pages come first). */
  best: Hit | undefined
  /** A passage of another page of the same source, about as likely meant; the answer asks whether it was. */
  alternative: Hit | undefined
}

/**
 * A passage far ahead of the first confident one that misses the coverage bar by a little (one of
 * the question's words absent: "do you sign the webhook payloads?" beside a webhook passage that
 * never says "payload") is the better answer: its lead says more than the word it lacks.
 */
export const OUTRANK_LEAD = 1.5
export const OUTRANK_COVERAGE = 0.5

function outranking(hits: readonly Hit[], confident: Hit | undefined): Hit | undefined {
  const [first] = hits
  if (!first || !confident || first === confident) return undefined
  return first.coverage >= OUTRANK_COVERAGE && first.score >= MIN_SCORE && first.score >= OUTRANK_LEAD * confident.score ? first : undefined
}

/** How sure retrieval is: a clear best answer, two close candidates, or nothing to answer with. */
export function choose(hits: readonly Hit[]): Choice {
  const confident = hits.filter(isConfident)
  const best = outranking(hits, confident[0]) ?? confident[0]
  if (!best || best.similarity >= SURE_SIMILARITY) return { best, alternative: undefined }
  // Another section of the same page is not another meaning: the page answers both.
  const alternative = confident.find(
    (h) => h.passage.url !== best.passage.url && h.passage.siteId === best.passage.siteId && h.score >= CLOSE * best.score,
  )
  return { best, alternative }
}

export interface SearchOptions {
  limit?: number
  /** Put this hosted site's best passages (up to `limit`) before the platform's. */
  siteId?: string | undefined
}

export interface Nearest {
  passage: Passage
  /** Cosine similarity (0–1) of the letters of the query and of the passage's closest stored question or heading. */
  similarity: number
  /** Whether every word of the query is one some passage contains (after corrections), or one that is not is spelt inside this passage. */
  explained: boolean
}

/** A word no passage contains is spelt inside the passage when this share of its four-letter sequences is. */
const SPELLED_IN = 0.5

export interface KnowledgeBase {
  search(locale: Locale, query: string, options?: SearchOptions): Hit[]
  /** The passage whose stored question or heading the query most resembles letter by letter (char-grams.ts), a hosted site's first. */
  nearest(locale: Locale, query: string, options?: Pick<SearchOptions, 'siteId'>): Nearest | undefined
  passages(locale: Locale): readonly Passage[]
  /** The first passage of a topic (pricing, contact, …) in the platform's knowledge. */
  page(locale: Locale, topic: string): Passage | undefined
  /**
   * Replaces what the assistant knows from one hosted site's published pages in one locale.
   * Indexes live in this process: every instance calls it (at start and when a site is published).
   * An empty list forgets the site's pages in that locale.
   */
  indexSitePassages(siteId: string, locale: Locale, passages: readonly SitePassageInput[]): void
  /** Forgets a hosted site's pages in every locale (site deleted or taken offline). */
  removeSitePassages(siteId: string): void
  /** The price list the knowledge was rendered from; price answers are made from it. */
  readonly pricing: Pricing
  /** Every amount (in euro) the price list contains: the only amounts an answer may quote. */
  readonly knownAmounts: ReadonlySet<number>
}

const knowledgeDir = new URL('./knowledge/', import.meta.url)

const intlLocale: Record<Locale, string> = { de: 'de-DE', en: 'en-IE', fr: 'fr-FR' }
const wholeEuro = Object.fromEntries(
  LOCALES.map((l) => [
    l,
    new Intl.NumberFormat(intlLocale[l], { style: 'currency', currency: 'EUR', minimumFractionDigits: 0, maximumFractionDigits: 0 }),
  ]),
)
const centEuro = Object.fromEntries(
  LOCALES.map((l) => [
    l,
    new Intl.NumberFormat(intlLocale[l], { style: 'currency', currency: 'EUR', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  ]),
)

/**
 * An amount as readers of the locale write it: "€49" and "€470.40" in English, "49 €" and
 * "470,40 €" in German and French, with the no-break spaces of CLDR (a narrow one between French
 * thousands), so an amount is never broken over two lines.
 */
export function formatEuro(cents: number, locale: Locale): string {
  return (cents % 100 === 0 ? wholeEuro : centEuro)[locale]!.format(cents / 100)
}

const percentFormat = Object.fromEntries(LOCALES.map((l) => [l, new Intl.NumberFormat(intlLocale[l], { style: 'percent' })]))
/** "20%" in English, "20 %" in German and French (no-break spaces). */
export function formatPercent(percent: number, locale: Locale): string {
  return percentFormat[locale]!.format(percent / 100)
}

const countFormat = Object.fromEntries(LOCALES.map((l) => [l, new Intl.NumberFormat(intlLocale[l])]))
export function formatCount(n: number, locale: Locale): string {
  return countFormat[locale]!.format(n)
}

const perMonth: Record<Locale, string> = { de: 'pro Monat', en: 'a month', fr: 'par mois' }
// French sets a colon apart like the other two-part signs.
const colon: Record<Locale, string> = { de: ': ', en: ': ', fr: ' : ' }
const perYear: Record<Locale, string> = {
  de: 'pro Jahr bei jährlicher Zahlung',
  en: 'a year when paid yearly',
  fr: 'par an en paiement annuel',
}

const unlimited: Record<Locale, string> = { de: 'unbegrenzt', en: 'unlimited', fr: 'illimité' }
const cadences: Record<Locale, Record<'monthly' | 'weekly', string>> = {
  de: { monthly: 'monatlich', weekly: 'wöchentlich' },
  en: { monthly: 'monthly', weekly: 'weekly' },
  fr: { monthly: 'chaque mois', weekly: 'chaque semaine' },
}

/** Every plan's storage or statistics period (of `plans`, when given), plans with one value grouped. */
export function limitsList(pricing: Pricing, kind: 'storage' | 'stats_kept', locale: Locale, plans?: readonly string[]): string {
  const extras = planExtras(pricing)
  const groups: Array<{ plans: string[]; value: string }> = []
  for (const p of pricing.plans) {
    if (plans && !plans.includes(p.id)) continue
    const value = kind === 'storage' ? storageText(extras[p.id].storageMb, locale) : keptText(extras[p.id].statsKept, locale)
    const last = groups.at(-1)
    if (last?.value === value) last.plans.push(planName(p.id, locale))
    else groups.push({ plans: [planName(p.id, locale)], value })
  }
  return groups.map((g) => `${joinList(g.plans, locale)} ${g.value}`).join(', ')
}

function fillPlaceholders(body: string, pricing: Pricing, locale: Locale, file: string): string {
  return body.replace(/\{\{([a-z_]+)(?::([a-z_]+))?\}\}/g, (_m, name: string, arg: string | undefined) => {
    if (name === 'plans') {
      return pricing.plans
        .map(
          (p) =>
            `- ${planName(p.id, locale)}${colon[locale]}${formatEuro(p.monthly_price_cents, locale)} ${perMonth[locale]} (${formatEuro(p.yearly_price_cents, locale)} ${perYear[locale]})`,
        )
        .join('\n')
    }
    if (name === 'addons') {
      return pricing.add_ons
        .map((a) => `- ${addOnName(a.id, locale)}${colon[locale]}${formatEuro(a.monthly_price_cents, locale)} ${perMonth[locale]}`)
        .join('\n')
    }
    if (name === 'yearly_discount') return formatPercent(pricing.yearly_discount_percent, locale)
    if (name === 'price') {
      const plan = pricing.plans.find((p) => p.id === arg)
      if (plan) return formatEuro(plan.monthly_price_cents, locale)
    }
    if (name === 'addon') {
      const addOn = pricing.add_ons.find((a) => a.id === arg)
      if (addOn) return formatEuro(addOn.monthly_price_cents, locale)
    }
    // What each plan includes, from the price list: "Free 1, Lite 1, Plus 3, Pro 10 and Max
    // unlimited" (plans including none left out), the report cadence per plan, the plan an add-on
    // starts from.
    if (name === 'allowance' && (arg === 'sites' || arg === 'own_domains' || arg === 'seats')) {
      const items = pricing.plans
        .filter((p) => p[arg] !== 0)
        .map((p) => `${planName(p.id, locale)} ${p[arg] === null ? unlimited[locale] : formatCount(p[arg], locale)}`)
      return joinList(items, locale)
    }
    if (name === 'reports') {
      return (['monthly', 'weekly'] as const)
        .map((cadence) => ({ cadence, plans: pricing.plans.filter((p) => p.seo_reports === cadence).map((p) => planName(p.id, locale)) }))
        .filter((c) => c.plans.length > 0)
        .map((c) => `${joinList(c.plans, locale)} ${cadences[locale][c.cadence]}`)
        .join(', ')
    }
    if (name === 'available' && arg) {
      const addOn = pricing.add_ons.find((a) => a.id === arg)
      if (addOn) return planName(addOn.available_from, locale)
    }
    // Storage and how long statistics are kept, per plan, plans with the same value grouped:
    // "Free 250 MB, Lite 1 GB, …", "Free 30 days, Lite and Plus 13 months, Pro and Max 25 months".
    if (name === 'storage' || name === 'stats_kept') return limitsList(pricing, name, locale)
    if (name === 'api_requests' && arg) {
      const plan = pricing.plans.find((p) => p.id === arg)
      if (plan) return formatCount(plan.api_requests_per_hour, locale)
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
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const { meta, body } = parseFile(readFileSync(new URL(file, dir), 'utf8'), `${locale}/${file}`)
    const [label, prompt] = (meta['suggestion'] ?? '').split('|').map((s) => s.trim())
    const suggestion = label && prompt ? { label: typeset(label, locale), prompt: typeset(prompt, locale) } : undefined
    const rendered = typeset(fillPlaceholders(body, pricing, locale, `${locale}/${file}`), locale)
    // The text before the first heading is a passage under the file's title; each section is one more.
    const sections = rendered.split(/^## /m)
    sections.forEach((section, i) => {
      const [heading, ...rest] = i === 0 ? ['', section] : section.split('\n')
      const lines = (i === 0 ? section : rest.join('\n')).split('\n')
      const questions = lines.filter((l) => l.startsWith('? ')).map((l) => l.slice(2).trim())
      const fact = lines
        .find((l) => l.startsWith('! '))
        ?.slice(2)
        .trim()
      const text = lines
        .filter((l) => !l.startsWith('? ') && !l.startsWith('! '))
        .join('\n')
        .trim()
      if (!text) return
      const title = i === 0 ? meta['title']! : `${meta['title']}: ${heading!.trim()}`
      passages.push({
        siteId: undefined,
        seq: passages.length,
        topic: meta['topic']!,
        keywords: meta['keywords'] ?? '',
        title,
        pageTitle: meta['title']!,
        url: meta['url']!,
        text,
        suggestion,
        questions,
        fact,
      })
    })
  }
  if (passages.length === 0) throw new Error(`knowledge base for ${locale} is empty`)
  return passages
}

/** A page address as a source may carry it (AgentSource urls start with /): a path, or the path of an absolute http(s) URL. */
function sitePath(url: string): string | undefined {
  if (url.startsWith('/') && !url.startsWith('//')) return url
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? `${parsed.pathname}${parsed.search}` : undefined
  } catch {
    return undefined
  }
}

interface Collection {
  locale: Locale
  passages: Passage[]
  index: Bm25Index
  questions: QuestionIndex
  analyzer: Analyzer
  /** Made on first use: few turns ask for it, and every process indexes each locale at start. */
  letters: () => CharGramIndex
}

/** What the closest stored question adds to a passage's score, at full similarity. */
export const QUESTION_WEIGHT = 4

/** A section's own heading; the page title for a page's opening passage. */
export const heading = (p: Passage) => (p.title === p.pageTitle ? p.title : p.title.slice(p.pageTitle.length + 2))

export function indexOf(passages: Passage[], locale: Locale): Collection {
  const analyzer = new Analyzer(
    locale,
    passages.flatMap((p) => [p.title, p.keywords, p.text, ...p.questions]),
  )
  // The heading counts twice: it says what a passage is about more surely than its body. A
  // section is indexed by its own heading, the page's opening passage by the page title, so a
  // general question ("How does the SEO audit work?") finds the opening, not a section that
  // happens to repeat the page's words. The questions a passage answers count as its words too.
  // Length counts for less than usual (b 0.5): a short section is not more likely the answer than a
  // longer one that holds the same words, which the many questions of a long page would make it.
  const index = new Bm25Index(
    passages.map((p) => {
      const title = analyzer.index(heading(p))
      return [
        ...title,
        ...title,
        ...analyzer.index(p.keywords),
        ...analyzer.index(p.text),
        ...p.questions.flatMap((q) => analyzer.index(q)),
      ]
    }),
    { b: 0.5 },
  )
  const questions = new QuestionIndex(
    passages.flatMap((p, doc) => p.questions.map((q) => ({ doc, terms: analyzer.index(q) }))),
    (term) => index.idf(term),
  )
  let letters: CharGramIndex | undefined
  const lettersIndex = () =>
    (letters ??= new CharGramIndex(
      passages.flatMap((p, doc) => [heading(p), p.keywords, ...p.questions].filter(Boolean).map((text) => ({ doc, text }))),
      locale,
    ))
  return { locale, passages, index, questions, analyzer, letters: lettersIndex }
}

/** The words of a query whose terms (after corrections) no passage of the collection contains. */
function unknownWords(collection: Collection, query: string): string[] {
  return words(query).filter((word) => {
    const terms = collection.analyzer.query(word)
    return terms.length > 0 && terms.every((term) => !collection.index.knows(term))
  })
}

/** Whether one of the words is spelt inside the passage's heading, text or stored questions. */
function spelledInPassage(words: readonly string[], passage: Passage): boolean {
  let own = passageGrams.get(passage)
  if (!own) passageGrams.set(passage, (own = fourLetterGrams([heading(passage), passage.text, ...passage.questions].join(' '))))
  return words.some((word) => spelledIn(word, own) >= SPELLED_IN)
}

/** Each passage's letter sequences, read once: a passage never changes, and a site's new passages are new objects. */
const passageGrams = new WeakMap<Passage, ReadonlySet<string>>()

/** Terms of the lexicon, per locale: a group no passage holds names what we do not offer, never a question's setting. */
const lexiconTerms = new Map<Locale, ReadonlySet<string>>()

/**
 * The terms of a question's common words, less those of the lexicon, and what a common word was
 * misread as (`guesses`): "interne" is not a typo of "internet".
 */
function settingTerms(locale: Locale, query: string, guesses: ReadonlySet<string>): ReadonlySet<string> {
  let ours = lexiconTerms.get(locale)
  if (!ours) lexiconTerms.set(locale, (ours = new Set(lexicon[locale].flatMap((group) => terms(group[0]!, locale)))))
  const lexiconTerm = ours
  const out = new Set(guesses)
  const add = (word: string) => {
    const term = termOf(word, locale)
    if (!lexiconTerm.has(term)) out.add(term)
  }
  for (const word of words(query)) if (isCommonWord(word, locale)) add(word)
  const lower = query.toLowerCase()
  // "a gallery of my haircuts", "Fotos von meinen Hunden", "des photos de mes toilettages": the
  // visitor's own things, however rare their name.
  for (const match of lower.matchAll(OWN_THINGS[locale])) add(match[1]!)
  // The name in a web address ("like mysalon.com", "fahrschule-huber.de"), not in a mail address.
  for (const match of lower.matchAll(WEB_ADDRESS)) for (const word of words(match[1]!)) add(word)
  return out
}

const WEB_ADDRESS = /(?<![@\p{L}\d.-])([\p{L}\d-]+)\.(?:com|net|org|de|fr|ch|at|be|eu|uk|co\.uk|info|shop|online)\b/gu

const OWN_THINGS: Record<Locale, RegExp> = {
  en: /\bof (?:my|our) ([\p{L}-]+)/gu,
  de: /\b(?:von|mit) (?:meinen|meiner|meinem|unseren|unserer|unserem) ([\p{L}-]+)/gu,
  fr: /\b(?:de|des) (?:mes|nos) ([\p{L}-]+)/gu,
}

function searchIn(collection: Collection, query: string, limit: number): Hit[] {
  const terms = collection.analyzer.query(query)
  const similarities = collection.questions.similarities(terms)
  const bonus = new Map([...similarities].map(([doc, similarity]) => [doc, similarity * QUESTION_WEIGHT]))
  // The terms of the question's common words (common-words.ts), read only once a term no passage
  // holds asks for them: most questions have none.
  let guesses: ReadonlySet<string> | undefined
  const guessed = () => (guesses ??= collection.analyzer.guesses(query))
  let setting: ReadonlySet<string> | undefined
  const isSetting = (term: string) => (setting ??= settingTerms(collection.locale, query, guessed())).has(term)
  const isGuess = (term: string) => guessed().has(term)
  return collection.index.search(terms, limit, bonus, isSetting, isGuess).map(({ doc, ...scored }) => ({
    passage: collection.passages[doc]!,
    ...scored,
    similarity: similarities.get(doc) ?? 0,
  }))
}

/**
 * The platform's own collections by the price list they were filled from, made once per process:
 * indexing every locale was an eighth of an app's start, and several apps built in one process
 * (instances side by side, a test worker building one per file) index the same passages. A
 * collection is never changed once made; each knowledge base keeps its sites' passages apart.
 */
const platformCollections = new Map<string, ReadonlyMap<Locale, Collection>>()

function platformCollectionsOf(pricing: Pricing): ReadonlyMap<Locale, Collection> {
  const key = JSON.stringify(pricing)
  let platform = platformCollections.get(key)
  if (!platform) {
    platform = new Map(LOCALES.map((locale) => [locale, indexOf(loadPassages(locale, pricing), locale)]))
    // Only tests pass other price lists; keep the last few.
    if (platformCollections.size >= 4) platformCollections.delete(platformCollections.keys().next().value!)
    platformCollections.set(key, platform)
  }
  return platform
}

/** Builds the ranking index of every locale once; searching is then pure computation. */
export function buildKnowledgeBase(pricing: Pricing = loadPricing()): KnowledgeBase {
  const platform = platformCollectionsOf(pricing)
  const sites = new Map<string, Map<Locale, Collection>>()
  const knownAmounts = new Set<number>([
    ...pricing.plans.flatMap((p) => [p.monthly_price_cents / 100, p.yearly_price_cents / 100]),
    ...pricing.add_ons.map((a) => a.monthly_price_cents / 100),
  ])
  return {
    pricing,
    knownAmounts,
    passages: (locale) => platform.get(locale)!.passages,
    page: (locale, topic) => platform.get(locale)!.passages.find((p) => p.topic === topic),
    search(locale, query, { limit = 3, siteId } = {}) {
      const own = siteId === undefined ? undefined : sites.get(siteId)?.get(locale)
      const platformHits = searchIn(platform.get(locale)!, query, limit)
      if (!own) return platformHits
      return [...searchIn(own, query, limit), ...platformHits]
    },
    nearest(locale, query, { siteId } = {}) {
      const collections = [siteId === undefined ? undefined : sites.get(siteId)?.get(locale), platform.get(locale)!]
      for (const collection of collections) {
        if (!collection) continue
        const near = collection.letters().nearest(query)
        if (!near) continue
        const passage = collection.passages[near.doc]!
        const unknown = unknownWords(collection, query)
        return { passage, similarity: near.similarity, explained: unknown.length === 0 || spelledInPassage(unknown, passage) }
      }
      return undefined
    },
    indexSitePassages(siteId, locale, inputs) {
      const passages = inputs
        .map((p) => ({ ...p, url: sitePath(p.url) }))
        .filter((p): p is SitePassageInput => p.url !== undefined && p.text.trim() !== '')
        .map(
          (p, seq): Passage => ({
            siteId,
            topic: 'site',
            title: p.title,
            pageTitle: p.title.split(': ')[0]!,
            url: p.url,
            text: p.text.trim(),
            keywords: p.keywords ?? '',
            suggestion: undefined,
            seq,
            questions: [],
            fact: undefined,
          }),
        )
      let byLocale = sites.get(siteId)
      if (passages.length === 0) {
        byLocale?.delete(locale)
        if (byLocale?.size === 0) sites.delete(siteId)
        return
      }
      if (!byLocale) sites.set(siteId, (byLocale = new Map()))
      byLocale.set(locale, indexOf(passages, locale))
    },
    removeSitePassages(siteId) {
      sites.delete(siteId)
    },
  }
}
