import type { Db } from '../infra/db.ts'

/** Runs `fn` in the caller's transaction when there is one, else in a new one; repositories compose either way. */
export function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : inTransaction(db, fn)
}

const committing = new WeakMap<Db, Array<() => void>>()

/** Runs `fn` in a new transaction, then what was left for its commit (`afterCommit`). */
export async function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  let opened: Db | undefined
  const value = await db.transaction().execute((trx) => {
    opened = trx
    return fn(trx)
  })
  for (const then of committing.get(opened!) ?? []) then()
  return value
}

/**
 * Runs `then` once `db`'s transaction, opened by inTransaction or withTransaction, has committed
 * (at once outside a transaction). Nothing runs when it rolls back.
 */
export function afterCommit(db: Db, then: () => void): void {
  if (!db.isTransaction) return then()
  let list = committing.get(db)
  if (!list) committing.set(db, (list = []))
  list.push(then)
}

/** The unique index or constraint a failed statement ran into (SQLSTATE 23505), if that was the failure. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: unknown; constraint?: unknown } | null
  return e?.code === '23505' && typeof e.constraint === 'string' ? e.constraint : undefined
}
