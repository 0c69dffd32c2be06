import type { Db } from '../infra/db.ts'

/** Runs `fn` in the caller's transaction when there is one, else in a new one; repositories compose either way. */
export function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : inTransaction(db, fn)
}

/** What each transaction opened by inTransaction runs once it has committed. */
const committing = new WeakMap<Db, Array<() => void>>()

/** Runs `fn` in a new transaction, then what was left for its commit (`afterCommit`). */
export async function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  const pending: Array<() => void> = []
  const value = await db.transaction().execute((trx) => {
    committing.set(trx, pending)
    return fn(trx)
  })
  for (const then of pending) then()
  return value
}

/**
 * Runs `then` once `db`'s transaction, opened by inTransaction or withTransaction, has committed;
 * nothing runs when it rolls back. Outside a transaction, or in one opened elsewhere (whose commit
 * cannot be followed), it runs at once rather than never.
 */
export function afterCommit(db: Db, then: () => void): void {
  const pending = db.isTransaction ? committing.get(db) : undefined
  if (!pending) return then()
  pending.push(then)
}

/** The unique index or constraint a failed statement ran into (SQLSTATE 23505), if that was the failure. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: unknown; constraint?: unknown } | null
  return e?.code === '23505' && typeof e.constraint === 'string' ? e.constraint : undefined
}
