import { createRequire } from 'node:module'
import type { Locale } from '../sites/tables.ts'

interface Stemmer {
  stem(word: string): string
}

// snowball-stemmers is CommonJS without types: the Snowball algorithms for German, English and French.
const snowball = createRequire(import.meta.url)('snowball-stemmers') as { newStemmer(language: string): Stemmer }

const languages: Record<Locale, string> = { de: 'german', en: 'english', fr: 'french' }

// Short lists of the words that carry no topic in each language; ranking ignores them.
const stopwords: Record<Locale, ReadonlySet<string>> = {
  en: new Set('a an and are as at be but by can could do does for from have how i if in is it its me my of on or our please so that the their them there this to us was we what when where which who why will with would you your'.split(' ')),
  de: new Set('aber als am an auch auf aus bei bin bis bitte da das dass dein dem den der des die doch du ein eine einem einen einer es für hab habe haben hat ich ihr im in ist ja kann können mein mich mir mit nach nicht noch nur ob oder sich sie sind so und uns unser von was welche welcher welches wenn wer wie wir wo zu zum zur'.split(' ')),
  fr: new Set("a au aux avec ce ces dans de des du elle en est et il je la le les leur ma mais me mes mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes ton tu un une vos votre vous y c d j l m n s t est-ce quel quelle quels quelles comment".split(' ')),
}

const stemmers = new Map<Locale, Stemmer>()
const cache = new Map<string, string>()
const CACHE_LIMIT = 50_000

function stemmer(locale: Locale): Stemmer {
  let s = stemmers.get(locale)
  if (!s) {
    s = snowball.newStemmer(languages[locale])
    stemmers.set(locale, s)
  }
  return s
}

/** Word stems of a text in a locale, stop words dropped; elisions (l'offre, d'un) split off. */
export function terms(text: string, locale: Locale): string[] {
  const words = text.toLowerCase().normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? []
  const stop = stopwords[locale]
  const out: string[] = []
  for (const word of words) {
    if (stop.has(word) || (word.length < 2 && !/\d/.test(word))) continue
    const key = `${locale}:${word}`
    let stem = cache.get(key)
    if (stem === undefined) {
      stem = stemmer(locale).stem(word)
      if (cache.size < CACHE_LIMIT) cache.set(key, stem)
    }
    out.push(stem)
  }
  return out
}

/** True when any of the phrases occurs in the text as whole words (case-insensitive). */
export function mentions(text: string, phrases: readonly string[]): boolean {
  const haystack = ` ${text.toLowerCase().normalize('NFC').replace(/[^\p{L}\p{N}]+/gu, ' ')} `
  return phrases.some((p) => haystack.includes(` ${p} `))
}
