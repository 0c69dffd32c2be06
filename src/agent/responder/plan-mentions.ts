import type { Locale } from '../../domain/locales.ts'
import { isPlan, type Plan } from '../../domain/accounts/plans.ts'

/**
 * Which plans a message names. Some plan names are everyday words ("pro Monat" in German, "le plus"
 * in French, "free" in English), so each name is read by one of three rules per language:
 * - plain: the word names the plan wherever it stands;
 * - guarded: it names the plan unless a neighbouring word shows the everyday sense;
 * - context: it names the plan only next to a word for "plan" ("formule Plus"), when written with
 *   a capital inside a sentence, or beside another plan name ("plus et pro", "Lite, Plus"), and
 *   never before a word that shows the everyday sense ("formule plus tard", "la plus simple").
 */
type Rule = 'plain' | 'guarded' | 'context'

const rules: Record<Locale, Record<Plan, Rule>> = {
  en: { free: 'context', lite: 'plain', plus: 'guarded', pro: 'plain', max: 'plain' },
  de: { free: 'plain', lite: 'plain', plus: 'guarded', pro: 'guarded', max: 'plain' },
  fr: { free: 'plain', lite: 'plain', plus: 'context', pro: 'guarded', max: 'plain' },
}

const planNouns: Record<Locale, ReadonlySet<string>> = {
  en: new Set(['plan', 'plans', 'tier', 'tiers', 'package', 'subscription', 'version', 'account', 'option']),
  de: new Set(['tarif', 'tarife', 'tarifs', 'paket', 'pakete', 'abo', 'abos', 'plan', 'version', 'konto']),
  fr: new Set(['formule', 'formules', 'offre', 'offres', 'abonnement', 'abonnements', 'plan', 'forfait', 'forfaits', 'version']),
}

const conjunctions: Record<Locale, ReadonlySet<string>> = {
  en: new Set(['and', 'or', 'vs', 'versus', 'to', 'than']),
  de: new Set(['und', 'oder', 'vs', 'versus', 'zu', 'als']),
  fr: new Set(['et', 'ou', 'vs', 'versus', 'contre', 'à']),
}

/** Neighbours that show a guarded word in its everyday sense: "pro Monat", "plus VAT", "site pro". */
const everydayAfter: Record<Locale, ReadonlySet<string>> = {
  en: new Set(['vat', 'tax', 'taxes', 'shipping']),
  de: new Set([
    'monat',
    'jahr',
    'woche',
    'tag',
    'stunde',
    'seite',
    'website',
    'websites',
    'nutzer',
    'person',
    'domain',
    'anfrage',
    'mitarbeiter',
    'mwst',
    'mehrwertsteuer',
    'ust',
    'steuer',
    'steuern',
    'versand',
  ]),
  fr: new Set([
    'tard',
    'tôt',
    'de',
    'd',
    'que',
    'qu',
    'cher',
    'chère',
    'simple',
    'grand',
    'grande',
    'petit',
    'petite',
    'besoin',
    'rien',
    'jamais',
    'loin',
    'souvent',
    'facile',
    'adaptée',
    'adapté',
    'économique',
    'complète',
    'complet',
  ]),
}
const everydayBefore: Record<Locale, ReadonlySet<string>> = {
  en: new Set(),
  de: new Set(),
  fr: new Set(['site', 'sites', 'email', 'mail', 'adresse', 'compte', 'usage', 'photo']),
}

interface Token {
  word: string
  lower: string
  index: number
}

export function plansMentioned(message: string, locale: Locale): Plan[] {
  const text = message.normalize('NFC')
  const tokens: Token[] = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: m[0], lower: m[0].toLowerCase(), index: m.index }))
  const found: Plan[] = []
  const candidate = (t: Token | undefined) => t !== undefined && isPlan(t.lower)
  tokens.forEach((token, i) => {
    if (!isPlan(token.lower) || found.includes(token.lower)) return
    const prev = tokens[i - 1]
    const next = tokens[i + 1]
    const rule = rules[locale][token.lower]
    const nextToPlanNoun = planNouns[locale].has(prev?.lower ?? '') || planNouns[locale].has(next?.lower ?? '')
    const beside =
      candidate(prev) ||
      candidate(next) ||
      (conjunctions[locale].has(prev?.lower ?? '') && candidate(tokens[i - 2])) ||
      (conjunctions[locale].has(next?.lower ?? '') && candidate(tokens[i + 2]))
    let named: boolean
    if (rule === 'plain') named = true
    else if (rule === 'guarded')
      named = nextToPlanNoun || beside || !(everydayAfter[locale].has(next?.lower ?? '') || everydayBefore[locale].has(prev?.lower ?? ''))
    else
      named =
        !everydayAfter[locale].has(next?.lower ?? '') &&
        (nextToPlanNoun || beside || (capitalised(token) && !sentenceStart(text, token.index)))
    if (named) found.push(token.lower)
  })
  // "der kostenlose Tarif", "la formule gratuite": the language's own word for free beside a word for plan
  // (English "free" is the plan's name, read by its rule above).
  const freeWord = FREE_WORDS[locale]
  const nounAt = (i: number) => planNouns[locale].has(tokens[i]?.lower ?? '')
  if (freeWord && !found.includes('free') && tokens.some((t, i) => freeWord.test(t.lower) && (nounAt(i - 1) || nounAt(i + 1))))
    found.push('free')
  return found
}

const FREE_WORDS: Partial<Record<Locale, RegExp>> = { de: /^(kostenlos\w*|gratis)$/, fr: /^gratuit\w*$/ }

const capitalised = (t: Token) => t.word[0] !== t.word[0]!.toLowerCase()

function sentenceStart(text: string, index: number): boolean {
  const before = text.slice(0, index).trimEnd()
  return before === '' || /[.!?¿¡:]$/.test(before)
}
