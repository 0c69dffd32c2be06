/**
 * The questions a passage answers, matched the way support tools match a visitor's question to
 * the questions an answer was written for: the similarity of two questions is the weight (inverse
 * document frequency) of the terms they share over the weight of all their terms, and a passage
 * scores the similarity of its closest question. A question is read only when it shares a term
 * with the visitor's, so a turn touches a handful of questions.
 */
export class QuestionIndex {
  readonly #postings = new Map<string, number[]>()
  readonly #weights: number[] = []
  readonly #docs: number[] = []
  readonly #idf: (term: string) => number

  constructor(questions: ReadonlyArray<{ doc: number; terms: readonly string[] }>, idf: (term: string) => number) {
    this.#idf = idf
    questions.forEach(({ doc, terms }, id) => {
      const distinct = new Set(terms)
      let weight = 0
      for (const term of distinct) {
        weight += idf(term)
        let list = this.#postings.get(term)
        if (!list) this.#postings.set(term, (list = []))
        list.push(id)
      }
      this.#weights.push(weight)
      this.#docs.push(doc)
    })
  }

  /** Each passage's best similarity (0–1) to the question, for the passages with a question sharing a term. */
  similarities(queryTerms: readonly string[]): Map<number, number> {
    const shared = new Map<number, number>()
    let weight = 0
    for (const term of new Set(queryTerms)) {
      const idf = this.#idf(term)
      weight += idf
      for (const id of this.#postings.get(term) ?? []) shared.set(id, (shared.get(id) ?? 0) + idf)
    }
    const best = new Map<number, number>()
    for (const [id, common] of shared) {
      const similarity = common / (weight + this.#weights[id]! - common)
      const doc = this.#docs[id]!
      if (similarity > (best.get(doc) ?? 0)) best.set(doc, similarity)
    }
    return best
  }
}
