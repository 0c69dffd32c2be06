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
  /** Each term's documents with the term's count there and the length norm of that count in that document. */
  readonly #postings = new Map<string, Array<{ doc: number; tf: number; norm: number }>>()
  readonly #k1: number
  readonly #count: number

  constructor(documents: string[][], options: Bm25Options = {}) {
    const k1 = (this.#k1 = options.k1 ?? 1.2)
    const b = options.b ?? 0.75
    this.#count = documents.length
    const lengths = documents.map((d) => d.length)
    const avgLength = lengths.reduce((a, n) => a + n, 0) / Math.max(1, documents.length)
    documents.forEach((terms, doc) => {
      const tf = new Map<string, number>()
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1)
      for (const [term, n] of tf) {
        let list = this.#postings.get(term)
        if (!list) this.#postings.set(term, (list = []))
        list.push({ doc, tf: n, norm: n + k1 * (1 - b + (b * (lengths[doc] ?? 0)) / avgLength) })
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
    // Per document: its score, the idf weight it matched and how many terms; `touched` lists the documents in the order first matched.
    const scores = new Float64Array(this.#count)
    const matched = new Float64Array(this.#count)
    const termCounts = new Int32Array(this.#count)
    const touched: number[] = []
    const k1 = this.#k1
    const distinct = new Set(queryTerms)
    let weight = 0
    let unknown = 0
    let setting = 0
    for (const term of distinct) {
      const idf = this.idf(term)
      weight += idf
      const postings = this.#postings.get(term)
      if (!postings) {
        unknown += idf
        if (isSetting?.(term)) setting += idf
        continue
      }
      for (const { doc, tf, norm } of postings) {
        if (termCounts[doc] === 0) touched.push(doc)
        scores[doc]! += (idf * tf * (k1 + 1)) / norm
        matched[doc]! += idf
        termCounts[doc]!++
      }
    }
    if (setting > 0 && isGuess)
      for (const term of distinct) {
        const postings = this.#postings.get(term)
        if (postings && isGuess(term)) for (const { doc } of postings) termCounts[doc]!--
      }
    if (bonus) for (const doc of touched) scores[doc]! += bonus.get(doc) ?? 0
    // The best `limit` documents by score (the lower number first on a tie), found before any result is made.
    const best: number[] = []
    const before = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b)
    for (const doc of touched) {
      if (best.length === limit && !before(doc, best[limit - 1]!)) continue
      let at = best.length < limit ? best.length : limit - 1
      while (at > 0 && before(doc, best[at - 1]!)) {
        if (at < limit) best[at] = best[at - 1]!
        at--
      }
      best[at] = doc
    }
    const subject = weight - setting
    return best.map((doc) => ({
      doc,
      score: scores[doc]!,
      coverage: matched[doc]! / weight,
      unknown: unknown / weight,
      setting: setting / weight,
      subjectCoverage: matched[doc]! / subject,
      subjectUnknown: (unknown - setting) / subject,
      matchedTerms: termCounts[doc]!,
    }))
  }
}
