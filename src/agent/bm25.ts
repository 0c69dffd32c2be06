/**
 * Okapi BM25 over pre-tokenised documents. Built once at start; a query costs one pass over the
 * postings of its terms. k1 and b are the usual defaults from the literature.
 */
export interface Bm25Options {
  k1?: number
  b?: number
}

export interface Scored {
  doc: number
  score: number
  /** Share of the query's idf weight found in the document (0–1); unknown terms weigh the most. */
  coverage: number
  /** Share of the query's idf weight in terms no document contains (0–1). */
  unknown: number
  /** Share of the query's idf weight in absent terms the caller reads as the question's setting, not its subject. */
  setting: number
  /** Coverage of the query's subject: its weight without the setting's. */
  subjectCoverage: number
  /** Share of the subject's weight in terms no document contains. */
  subjectUnknown: number
  /** How many of the query's distinct terms the document holds, less those the caller reads as guesses. */
  matchedTerms: number
}

export class Bm25Index {
  readonly #postings = new Map<string, Array<{ doc: number; tf: number }>>()
  readonly #lengths: number[]
  readonly #avgLength: number
  readonly #k1: number
  readonly #b: number
  readonly #count: number

  constructor(documents: string[][], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2
    this.#b = options.b ?? 0.75
    this.#count = documents.length
    this.#lengths = documents.map((d) => d.length)
    this.#avgLength = this.#lengths.reduce((a, n) => a + n, 0) / Math.max(1, documents.length)
    documents.forEach((terms, doc) => {
      const tf = new Map<string, number>()
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1)
      for (const [term, n] of tf) {
        let list = this.#postings.get(term)
        if (!list) this.#postings.set(term, (list = []))
        list.push({ doc, tf: n })
      }
    })
  }

  /** Whether any document holds the term. */
  knows(term: string): boolean {
    return this.#postings.has(term)
  }

  /** Inverse document frequency, the variant that never goes negative. */
  idf(term: string): number {
    const df = this.#postings.get(term)?.length ?? 0
    return Math.log(1 + (this.#count - df + 0.5) / (df + 0.5))
  }

  /**
   * Documents with a positive score, best first; `bonus` adds to the scores of the documents it
   * names; `isSetting` tells which of the terms no document holds describe the asker's situation,
   * and `isGuess` which of the others were guessed, not typed: asked only when there is a setting.
   */
  search(
    queryTerms: string[],
    limit = 3,
    bonus?: ReadonlyMap<number, number>,
    isSetting?: (term: string) => boolean,
    isGuess?: (term: string) => boolean,
  ): Scored[] {
    const scores = new Map<number, { score: number; matched: number; terms: number }>()
    let weight = 0
    let unknown = 0
    let setting = 0
    for (const term of new Set(queryTerms)) {
      const idf = this.idf(term)
      weight += idf
      const postings = this.#postings.get(term)
      if (!postings) {
        unknown += idf
        if (isSetting?.(term)) setting += idf
        continue
      }
      for (const { doc, tf } of postings) {
        const norm = tf + this.#k1 * (1 - this.#b + (this.#b * (this.#lengths[doc] ?? 0)) / this.#avgLength)
        const entry = scores.get(doc)
        const gain = (idf * tf * (this.#k1 + 1)) / norm
        if (entry) {
          entry.score += gain
          entry.matched += idf
          entry.terms++
        } else scores.set(doc, { score: gain, matched: idf, terms: 1 })
      }
    }
    if (setting > 0 && isGuess)
      for (const term of new Set(queryTerms)) {
        const postings = this.#postings.get(term)
        if (postings && isGuess(term)) for (const { doc } of postings) scores.get(doc)!.terms--
      }
    const subject = weight - setting
    return [...scores.entries()]
      .map(([doc, { score, matched, terms }]) => ({
        doc,
        score: score + (bonus?.get(doc) ?? 0),
        coverage: matched / weight,
        unknown: unknown / weight,
        setting: setting / weight,
        subjectCoverage: matched / subject,
        subjectUnknown: (unknown - setting) / subject,
        matchedTerms: terms,
      }))
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .slice(0, limit)
  }
}
