import { createRequire } from 'node:module'
import type { Locale } from '../domain/locales.ts'

interface Stemmer {
  stem(word: string): string
}

// snowball-stemmers is CommonJS without types: the Snowball algorithms for German, English and French.
const snowball = createRequire(import.meta.url)('snowball-stemmers') as { newStemmer(language: string): Stemmer }

const languages: Record<Locale, string> = { de: 'german', en: 'english', fr: 'french' }

// Short lists of the words that carry no topic in each language; ranking ignores them. Besides
// grammar words they hold the verbs of asking ("do you offer", "gibt es", "proposez-vous"): a
// question that matches a passage only on those has not matched it at all.
const stopwords: Record<Locale, ReadonlySet<string>> = {
  en: new Set(
    'a an and are as at be but by can could do does did for from get got give have has how i if in is it its me my of on or our please so that the their them there this to us was we what when where which who why will with would you your much many any some also just there tell know like want need offer offers offering provide provides possible way ok okay thanks thank yes no include includes included including contain contains come comes work works working put use using take takes current currently existing already still later now anytime'.split(' '),
  ),
  de: new Set(
    'aber als am an auch auf aus bei bin bis bitte da das dass dein dem den der des die doch du ein eine einem einen einer es für hab habe haben hat ich ihr ihre ihnen im in ist ja kann können könnte man mein meine mich mir mit nach nicht noch nur ob oder sich sie sind so und uns unser von was welche welcher welches welchen welchem wenn wer wie wir wo zu zum zur gibt geben gib bieten bietet biete möglich viel denn mal danke gern gerne etwas enthält enthalten umfasst beinhaltet beinhalten dabei inklusive meiner meinen meinem meines deiner deinen ihrem ihren ihres unsere unseren unserem unserer euer eure sein seine wird werden würde gut später jetzt jederzeit funktioniert funktionieren geht läuft brauche brauchen benötige benötigen verwenden nutzen benutzen einsetzen bekomme bekommen erhalte kriege'.split(' '),
  ),
  fr: new Set(
    "a au aux avec ce ces dans de des du elle en est et il je la le les leur ma mais me mes mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes ton tu un une vos votre vous y c d j l m n s t est-ce quel quelle quels quelles comment ce cela ça proposez propose proposer offrez il y a peut peux puis pouvez avez ai fait faire merci oui non bien si comprend comprennent inclus inclut incluse contient fonctionne fonctionnent marche faut mettre utiliser obtenir combien avoir incluent ils elles tard maintenant".split(' '),
  ),
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

/** The lower-cased words of a text, apostrophes and hyphens splitting words (l'offre, SEO-Audit). */
export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? []
}

/** Word stems of a text in a locale, stop words dropped; elisions (l'offre, d'un) split off. */
export function terms(text: string, locale: Locale): string[] {
  return stems(words(text), locale)
}

export function stems(list: readonly string[], locale: Locale): string[] {
  const stop = stopwords[locale]
  const out: string[] = []
  for (const word of list) {
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

/** A message made ready for phrase matching once: its words joined by single spaces, padded. */
export function haystack(text: string): string {
  return ` ${words(text).join(' ')} `
}

/** True when any of the phrases occurs in a haystack as whole words. */
export function has(hay: string, phrases: readonly string[]): boolean {
  return phrases.some((p) => hay.includes(` ${p} `))
}

/** True when any of the phrases occurs in the text as whole words (case-insensitive). */
export function mentions(text: string, phrases: readonly string[]): boolean {
  return has(haystack(text), phrases)
}

const NBSP = '\u00a0'
const NNBSP = '\u202f'

/**
 * French typography: a no-break space before a colon, a narrow no-break space before ; ! ? % and
 * inside « », so a line never starts with the sign. Only spaces already written are changed, so
 * addresses and times (https://, 9:00) stay as they are.
 */
export function frenchTypography(text: string): string {
  return text
    .replace(/[ \u00a0\u202f]+:/g, `${NBSP}:`)
    .replace(/[ \u00a0\u202f]+([;!?»%])/g, `${NNBSP}$1`)
    .replace(/«[ \u00a0\u202f]+/g, `«${NNBSP}`)
}

/** The reply's typography for its locale (French spacing; German and English need nothing). */
export function typeset(text: string, locale: Locale): string {
  return locale === 'fr' ? frenchTypography(text) : text
}
