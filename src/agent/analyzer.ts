import type { Locale } from '../domain/locales.ts'
import { isCommonWord } from './common-words.ts'
import { lexicon } from './lexicon.ts'
import { fold, isStopword, isTrade, type LexiconToken, stem, stopwordList, termOf, tokens, words } from './text.ts'

/**
 * Reads texts and questions for one collection of passages (the platform's knowledge in a locale,
 * or one hosted site's pages), knowing that collection's words:
 * - German compounds are split into the words the collection knows ("Jahreszahlung" also counts
 *   as "Jahr" and "Zahlung"), in the passages and in questions alike;
 * - a word of a question that the collection does not know is read as the known word (or stop
 *   word) it most likely misspells: one edit away for words of five to eight letters, two for longer
 *   ones (insertions, deletions, substitutions and swapped neighbours), the more frequent word first.
 * What a word becomes is remembered, so a question of known words costs a few map look-ups.
 */
export class Analyzer {
  readonly #locale: Locale
  readonly #base: Vocabulary
  /** Terms the collection's texts contain. */
  readonly #known = new Set<string>()
  /** The term of each stem of the collection's words: a compound's first part is often a bare stem ("Mindest-"). */
  readonly #byStem = new Map<string, string>()
  /** The words (folded) of the collection's texts, with how often they occur. */
  readonly #frequency = new Map<string, number>()
  /** The collection's own words (those the lexicon and stop words lack) by each of their deletion forms. */
  readonly #deletes = new Map<string, string[]>()
  readonly #memo = new Map<string, readonly string[]>()
  /** Words of questions read as another word they may misspell. */
  readonly #corrected = new Set<string>()
  /** The last question's tokens: a search reads its terms, then its guesses, of the same text. */
  #last: { text: string; tokens: readonly LexiconToken[] } | undefined

  constructor(locale: Locale, texts: readonly string[]) {
    this.#locale = locale
    this.#base = vocabulary(locale)
    for (const text of texts) {
      for (const token of tokens(text, locale)) this.#known.add(token.term ?? termOf(token.word!, locale))
      for (const word of words(text)) {
        const folded = fold(word)
        if (usable(folded)) this.#frequency.set(folded, (this.#frequency.get(folded) ?? 0) + 1)
      }
    }
    for (const word of this.#frequency.keys()) {
      const s = stem(word, locale)
      if (!this.#byStem.has(s)) this.#byStem.set(s, termOf(word, locale))
      if (!this.#base.words.has(word)) addDeletions(this.#deletes, word)
    }
  }
  /** The terms of a passage's text: its words' terms, and the parts of its compounds. */
  index(text: string): string[] {
    const out: string[] = []
    for (const token of tokens(text, this.#locale)) {
      if (token.term) out.push(token.term)
      else out.push(...this.#indexWord(token.word!))
    }
    return out
  }

  /**
   * The terms of a question: as a passage's, and each unknown word read as the known word it
   * misspells. A trade the collection never names ("as a florist, can I…") is the question's
   * setting, not its subject, and is left out.
   */
  query(text: string): string[] {
    const out: string[] = []
    for (const token of this.#questionTokens(text)) {
      if (token.term) out.push(token.term)
      else if (!this.#unknownTrade(token.word!)) out.push(...this.#queryWord(token.word!))
    }
    return out
  }

  /**
   * The terms a question's everyday words were guessed to misspell ("coupe" read as "coûte"): an
   * everyday word is more often just itself, so such a match says less than one the visitor typed.
   */
  guesses(text: string): ReadonlySet<string> {
    const out = new Set<string>()
    for (const token of this.#questionTokens(text)) {
      const word = token.word
      if (word === undefined || !this.#corrected.has(word) || !isCommonWord(word, this.#locale)) continue
      for (const term of this.#queryWord(word)) out.add(term)
    }
    return out
  }

  #questionTokens(text: string): readonly LexiconToken[] {
    if (this.#last?.text !== text) this.#last = { text, tokens: tokens(text, this.#locale) }
    return this.#last.tokens
  }

  #unknownTrade(word: string): boolean {
    return isTrade(word, this.#locale) && !this.#known.has(termOf(word, this.#locale))
  }

  #indexWord(word: string): readonly string[] {
    const term = termOf(word, this.#locale)
    const parts = this.#locale === 'de' ? this.#split(word) : undefined
    return parts ? [term, ...parts] : [term]
  }

  #queryWord(word: string): readonly string[] {
    let out = this.#memo.get(word)
    if (out) return out
    const term = termOf(word, this.#locale)
    if (this.#known.has(term)) out = this.#indexWord(word)
    else {
      const split = this.#locale === 'de' ? this.#split(word) : undefined
      const corrected = split ? undefined : this.#correct(word)
      if (corrected && this.#corrected.size < MEMO_LIMIT) this.#corrected.add(word)
      out = split ?? corrected ?? [term]
    }
    if (this.#memo.size < MEMO_LIMIT) this.#memo.set(word, out)
    return out
  }

  /** A German compound as the known words it is made of (with their linking s, es, n or en), or undefined. */
  #split(word: string, depth = 0): string[] | undefined {
    if (word.length < 7 || depth > 2) return undefined
    // The longest known last part first: "Vertragslaufzeit" is Vertrag + Laufzeit, not … + Zeit.
    for (let at = 3; at <= word.length - 3; at++) {
      const tail = word.slice(at)
      const tailTerm = this.#knownTerm(tail)
      if (!tailTerm) continue
      const rest = [tailTerm]
      const head = word.slice(0, at)
      for (const link of ['', 's', 'es', 'n', 'en']) {
        if (link && !head.endsWith(link)) continue
        const stemOf = head.slice(0, head.length - link.length)
        if (stemOf.length < 3) continue
        const headTerm = this.#knownTerm(stemOf)
        if (headTerm) return [headTerm, ...rest]
        const inner = this.#split(stemOf, depth + 1)
        if (inner) return [...inner, ...rest]
      }
    }
    return undefined
  }

  /** A compound part's term when the collection knows it, as a word or as the stem of a word it or the lexicon has. */
  #knownTerm(part: string): string | undefined {
    const term = termOf(part, this.#locale)
    if (this.#known.has(term)) return term
    const folded = fold(part)
    const byStem = this.#byStem.get(folded) ?? this.#base.byStem.get(folded)
    return byStem !== undefined && this.#known.has(byStem) ? byStem : undefined
  }

  #frequencyOf(word: string): number {
    return this.#frequency.get(word) ?? 0
  }

  /** Known words (of the collection, the lexicon or the stop words) with this deletion form. */
  #candidates(form: string): readonly string[] {
    const own = this.#deletes.get(form)
    const base = this.#base.deletes.get(form)
    return own && base ? [...own, ...base] : (own ?? base ?? [])
  }

  /** The known word a misspelt one most likely stands for, as terms ([] for a stop word); undefined when none is near. */
  #correct(word: string): string[] | undefined {
    const folded = fold(word)
    if (/\d/.test(folded)) return undefined
    // A four-letter word is read only as a longer word missing one letter ("anée", "prce"): a
    // letter changed in so short a word makes too many other words ("shop", "show").
    if (folded.length === 4) return this.#pick(this.#candidates(folded).filter((c) => c.length === 5 && sameStart(folded, c)))
    const edits = maxEdits(folded.length)
    if (edits === 0) return undefined
    let best: string | undefined
    let bestDistance = edits + 1
    let bestFrequency = -1
    for (const form of deletions(folded, edits)) {
      for (const candidate of this.#candidates(form)) {
        if (candidate === best || !sameStart(folded, candidate)) continue
        const distance = editDistance(folded, candidate, edits)
        const frequency = this.#frequencyOf(candidate)
        if (distance < bestDistance || (distance === bestDistance && frequency > bestFrequency)) {
          best = candidate
          bestDistance = distance
          bestFrequency = frequency
        }
      }
    }
    return best === undefined ? undefined : this.#termsOf(best)
  }

  /** The most frequent of equally near candidates. */
  #pick(candidates: readonly string[]): string[] | undefined {
    let best: string | undefined
    for (const c of candidates) if (best === undefined || this.#frequencyOf(c) > this.#frequencyOf(best)) best = c
    return best === undefined ? undefined : this.#termsOf(best)
  }

  #termsOf(word: string): string[] {
    return isStopword(word, this.#locale) ? [] : [...this.#indexWord(word)]
  }
}

const MEMO_LIMIT = 20_000

/** Words a misspelling may stand for: letters only, two or more. */
const usable = (word: string) => word.length >= 2 && !/\d/.test(word)

/** What every collection of a locale knows: the lexicon's and the stop words' words, built once and shared. */
interface Vocabulary {
  words: ReadonlySet<string>
  deletes: ReadonlyMap<string, string[]>
  /** The term of each stem of those words. */
  byStem: ReadonlyMap<string, string>
}

const vocabularies = new Map<Locale, Vocabulary>()

function vocabulary(locale: Locale): Vocabulary {
  let found = vocabularies.get(locale)
  if (found) return found
  const all = new Set<string>()
  for (const group of lexicon[locale])
    for (const entry of group) for (const word of words(entry)) if (usable(fold(word))) all.add(fold(word))
  for (const word of stopwordList(locale)) if (usable(fold(word))) all.add(fold(word))
  const deletes = new Map<string, string[]>()
  const byStem = new Map<string, string>()
  for (const word of all) {
    addDeletions(deletes, word)
    const s = stem(word, locale)
    if (!byStem.has(s)) byStem.set(s, termOf(word, locale))
  }
  found = { words: all, deletes, byStem }
  vocabularies.set(locale, found)
  return found
}

function addDeletions(index: Map<string, string[]>, word: string) {
  for (const form of deletions(word, maxEdits(word.length))) {
    let list = index.get(form)
    if (!list) index.set(form, (list = []))
    list.push(word)
  }
}

/** Edits allowed between a word and the one it misspells: none below five letters (four-letter words are read apart), one up to eight, two beyond. */
const maxEdits = (length: number) => (length < 5 ? 0 : length < 9 ? 1 : 2)

/** Misspellings keep the first letter, or swap the first two: "iphone" is not "phone". */
const sameStart = (a: string, b: string) => a[0] === b[0] || (a[0] === b[1] && a[1] === b[0])

/** The word and every form of it with up to `edits` letters deleted. */
function deletions(word: string, edits: number): Set<string> {
  const out = new Set<string>([word])
  let frontier = [word]
  for (let e = 0; e < edits; e++) {
    const next: string[] = []
    for (const w of frontier) {
      for (let i = 0; i < w.length; i++) {
        const form = w.slice(0, i) + w.slice(i + 1)
        if (!out.has(form)) {
          out.add(form)
          next.push(form)
        }
      }
    }
    frontier = next
  }
  return out
}

/** Optimal string alignment distance (edits, with swapped neighbours as one), or max + 1 once it exceeds max. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0)
    row[0] = i
    let smallest = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row[j] = d
      if (d < smallest) smallest = d
    }
    if (smallest > max) return max + 1
    before = previous
    previous = row
  }
  return previous[b.length]!
}
