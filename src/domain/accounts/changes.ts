import type { Db } from '../../infra/db.ts'
import { afterCommit } from '../transaction.ts'

/**
 * Changes of accounts (plan, budget), API tokens (revoked, rotated) and media (removed) made in
 * this process, as one sequence. A cache of their state (the account frame's quota tally and token
 * cache, the media answers of the sites) notes the sequence before it reads the database, and
 * treats its reading as stale once the item changed after that. A sequence rather than a clock: a change and a reading made in the
 * same millisecond are still ordered.
 */
let sequence = 0
/** Every reading made before this point is stale: what changed before it is no longer listed. */
let forgottenUpTo = 0
const changed = new Map<string, number>()
/** Bounded: a flood of changes costs a few exact re-reads, never memory. */
const REMEMBERED = 10_000

/** Where the sequence stands: note it before reading an account or token. */
export function changeSequence(): number {
  return sequence
}

/**
 * Runs `write`, a change of accounts, tokens or members (`ids`) through `db`, and records the change
 * before it and again once it has committed (at the end of the caller's transaction, when `db` is
 * one). A reading that noted the sequence while the write was under way may have read the rows as
 * they were before it: only the mark after the commit makes that reading stale.
 */
export async function changing<T>(db: Db, ids: readonly string[], write: () => Promise<T>): Promise<T> {
  markAll(ids)
  const value = await write()
  afterCommit(db, () => markAll(ids))
  return value
}

/** Records a change `trx` makes to `ids` within its transaction: now, and again once it commits (as `changing`). */
export function changingIn(trx: Db, ids: readonly string[]): void {
  markAll(ids)
  afterCommit(trx, () => markAll(ids))
}

function markAll(ids: readonly string[]): void {
  for (const id of ids) markChanged(id)
}

/** Records a change of an account or token (by its id) made in this process, at once; a write that commits later goes through `changing`. */
export function markChanged(id: string): void {
  if (changed.size >= REMEMBERED) {
    changed.clear()
    forgottenUpTo = sequence
  }
  changed.set(id, ++sequence)
}

/** Whether the account or token changed after a reading that noted `seen`. */
export function changedSince(id: string, seen: number): boolean {
  return (changed.get(id) ?? forgottenUpTo) > seen
}
