/**
 * A small in-process cache with per-entry expiry and a size bound (oldest entries go first).
 * Only for answers that are safe to reuse for a few seconds on one instance.
 */
export class ShortCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>()
  private readonly maxEntries: number

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.until <= now) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  set(key: string, value: V, until: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next()
      if (!oldest.done) this.entries.delete(oldest.value)
    }
    this.entries.set(key, { value, until })
  }
}
