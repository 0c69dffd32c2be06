/**
 * Repeat answers of this process, serialised: the JSON body of a stored report as a repeat gets it
 * (`cached: true`), kept until the report leaves the freshness window. A repeat then costs no
 * database round trip, no jsonb decoding and no serialisation of a large report. Bounded; the
 * database stays the source for reports this process has not answered yet.
 */
export class RecentAnswers {
  readonly #entries = new Map<string, { body: string; until: number }>()
  readonly #max: number

  constructor(max = 2000) {
    this.#max = max
  }

  get(key: string, now = Date.now()): string | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (entry.until <= now) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.body
  }

  set(key: string, body: string, until: number): void {
    this.#entries.delete(key)
    if (this.#entries.size >= this.#max) {
      // Map iteration is insertion order: the first key is the oldest.
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
    this.#entries.set(key, { body, until })
  }
}
