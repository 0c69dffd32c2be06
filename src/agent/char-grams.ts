import type { Locale } from '../domain/locales.ts'
import { fold, isStopword, words } from './text.ts'

/** Lengths of the letter sequences a word is read as: short enough to survive an ending or a typo, long enough to mean something. */
const LENGTHS = [3, 4, 5]

const wordGrams = new Map<string, readonly string[]>()
const WORD_CACHE_LIMIT = 50_000

/** A word's letter sequences, padded so its start and end count too; remembered, as words repeat. */
function gramsOfWord(word: string): readonly string[] {
  let out = wordGrams.get(word)
  if (!out) {
    const padded = ` ${fold(word)} `
    const list: string[] = []
    for (const n of LENGTHS) for (let i = 0; i + n <= padded.length; i++) list.push(padded.slice(i, i + n))
    out = list
    if (wordGrams.size < WORD_CACHE_LIMIT) wordGrams.set(word, out)
  }
  return out
}

/** The letter sequences of a text's words (stop words left out), with how often each occurs. */
function grams(text: string, locale: Locale): Map<string, number> {
  const out = new Map<string, number>()
  for (const word of words(text)) {
    if (word.length < 3 || isStopword(word, locale)) continue
    for (const gram of gramsOfWord(word)) out.set(gram, (out.get(gram) ?? 0) + 1)
  }
  return out
}

/** A word's four-letter sequences. */
const fourLettersOf = (word: string) => gramsOfWord(word).filter((g) => g.length === 4)

/** The four-letter sequences of a text's words: what `spelledIn` looks for a word's in. */
export function fourLetterGrams(text: string): ReadonlySet<string> {
  return new Set(words(text).flatMap(fourLettersOf))
}

/**
 * How much of a word is spelt inside a text: the share of its four-letter sequences the text's
 * words hold (`inText`, from `fourLetterGrams`). "Bildergalerie" is mostly inside a text about a
 * gallery of pictures; "Shopify" is inside nothing about an API.
 */
export function spelledIn(word: string, inText: ReadonlySet<string>): number {
  const own = new Set(fourLettersOf(word))
  if (own.size === 0) return 0
  let found = 0
  for (const gram of own) if (inText.has(gram)) found++
  return found / own.size
}

/**
 * A second reading of a question, by the letters of its words rather than by its terms: each
 * stored question and heading is a vector of its words' three- to five-letter sequences, weighted by
 * how rare each sequence is, and a question is compared to them by cosine similarity. Where the
 * term index misses a new wording ("Bildergalerie" for the gallery, "factures" beside "facture",
 * an ending the stemmer reads otherwise), the shared letters still show which passage it resembles.
 * It only ever confirms one of the term index's own candidates (the responder asks both).
 */
export class CharGramIndex {
  /** Each sequence's number; its postings are entries[offsets[id]..offsets[id + 1]] with their weights. */
  readonly #ids = new Map<string, number>()
  readonly #idf: Float64Array
  readonly #offsets: Int32Array
  readonly #entries: Int32Array
  readonly #weights: Float64Array
  readonly #docs: Int32Array
  readonly #norms: Float64Array
  readonly #locale: Locale
  readonly #unseen: number
  /** Scratch for one query's dot products (a query runs synchronously, start to end). */
  readonly #dots: Float64Array
  readonly #touched: Int32Array

  constructor(entries: ReadonlyArray<{ doc: number; text: string }>, locale: Locale) {
    this.#locale = locale
    const counted = entries.map(({ text }) => grams(text, locale))
    const df: number[] = []
    let postings = 0
    for (const entry of counted) {
      postings += entry.size
      for (const gram of entry.keys()) {
        let id = this.#ids.get(gram)
        if (id === undefined) this.#ids.set(gram, (id = df.push(0) - 1))
        df[id]!++
      }
    }
    this.#idf = Float64Array.from(df, (n) => Math.log(1 + entries.length / n))
    this.#unseen = Math.log(1 + entries.length)
    this.#offsets = new Int32Array(df.length + 1)
    for (let id = 0; id < df.length; id++) this.#offsets[id + 1] = this.#offsets[id]! + df[id]!
    const fill = this.#offsets.slice(0, df.length)
    this.#entries = new Int32Array(postings)
    this.#weights = new Float64Array(postings)
    this.#docs = Int32Array.from(entries, (e) => e.doc)
    this.#norms = new Float64Array(entries.length)
    counted.forEach((entry, index) => {
      let norm = 0
      for (const [gram, count] of entry) {
        const id = this.#ids.get(gram)!
        const weight = (1 + Math.log(count)) * this.#idf[id]!
        norm += weight * weight
        const at = fill[id]!++
        this.#entries[at] = index
        this.#weights[at] = weight
      }
      this.#norms[index] = Math.sqrt(norm)
    })
    this.#dots = new Float64Array(entries.length)
    this.#touched = new Int32Array(entries.length)
  }

  /** The passage whose stored question or heading is most like the text, with that similarity (0–1). */
  nearest(text: string): { doc: number; similarity: number } | undefined {
    const dots = this.#dots
    const touched = this.#touched
    let count = 0
    let norm = 0
    for (const [gram, n] of grams(text, this.#locale)) {
      const id = this.#ids.get(gram)
      // A sequence no stored text has weighs as the rarest would: it makes the question less like all of them.
      const weight = (1 + Math.log(n)) * (id === undefined ? this.#unseen : this.#idf[id]!)
      norm += weight * weight
      if (id === undefined) continue
      for (let at = this.#offsets[id]!; at < this.#offsets[id + 1]!; at++) {
        const entry = this.#entries[at]!
        if (dots[entry] === 0) touched[count++] = entry
        dots[entry]! += weight * this.#weights[at]!
      }
    }
    let best: { doc: number; similarity: number } | undefined
    const length = Math.sqrt(norm)
    for (let i = 0; i < count; i++) {
      const entry = touched[i]!
      const similarity = dots[entry]! / (length * this.#norms[entry]!)
      dots[entry] = 0
      if (!best || similarity > best.similarity) best = { doc: this.#docs[entry]!, similarity }
    }
    return best
  }
}
