import type { ApiTokenRow } from '../domain/api-tokens.ts'
import { changedSince } from '../domain/accounts/changes.ts'

/** How long a token row read for one call may serve the next calls of the same token. */
const FRESH_MS = 1000
/** Bounded: a flood of distinct tokens costs a re-read, never memory. */
const MAX_TOKENS = 10_000

/**
 * API token rows read in the last second, so a burst of calls with one token reads it once.
 * Every call still checks the presented secret, the revocation and the expiry against the row
 * (`checkApiToken`); a revocation or rotation made by this process makes the row stale at once
 * (`forgetApiToken`), one made elsewhere is seen within the second.
 */
export class ApiTokenCache {
  readonly #rows = new Map<string, { row: ApiTokenRow; readAt: number; seen: number }>()

  get(id: string, now = Date.now()): ApiTokenRow | undefined {
    const entry = this.#rows.get(id)
    if (entry && now - entry.readAt <= FRESH_MS && !changedSince(id, entry.seen)) return entry.row
    if (entry) this.#rows.delete(id)
    return undefined
  }

  /** A row read from the database; `seen` is the change sequence noted before the read. */
  remember(row: ApiTokenRow, seen: number, now = Date.now()): void {
    if (this.#rows.size >= MAX_TOKENS) this.#rows.clear()
    this.#rows.set(row.id, { row, readAt: now, seen })
  }
}
