import type { ApiTokenRow } from '../domain/accounts/api-tokens.ts'
import type { Role } from '../domain/accounts/members.ts'
import { changedSince } from '../domain/accounts/changes.ts'

/** How long a token row read for one call may serve the next calls of the same token. */
export const FRESH_MS = 1000
/** Bounded: a flood of distinct tokens costs a re-read, never memory. */
const MAX_TOKENS = 10_000

/** A token row with the role its member had when it was read (null: the member left the account). */
export interface TokenReading {
  row: ApiTokenRow
  role: Role | null
}

/**
 * API token rows read in the last second, so a burst of calls with one token reads it once.
 * Every call still checks the presented secret, the revocation and the expiry against the row
 * (`checkApiToken`); a revocation, rotation or change of the member's role made by this process
 * makes the row stale at once (`markChanged` of the token), one made elsewhere is seen within the second.
 */
export class ApiTokenCache {
  readonly #rows = new Map<string, TokenReading & { readAt: number; seen: number }>()

  get(id: string, now = Date.now()): (TokenReading & { readAt: number }) | undefined {
    const entry = this.#rows.get(id)
    if (entry && now - entry.readAt <= FRESH_MS && !changedSince(id, entry.seen)) return entry
    if (entry) this.#rows.delete(id)
    return undefined
  }

  /** A row read from the database; `seen` is the change sequence noted before the read. */
  remember(reading: TokenReading, seen: number, now = Date.now()): void {
    if (this.#rows.size >= MAX_TOKENS) this.#rows.clear()
    this.#rows.set(reading.row.id, { ...reading, readAt: now, seen })
  }
}
