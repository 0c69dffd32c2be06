import type { Db } from '../infra/db.ts'

/** Runs `fn` in the caller's transaction when there is one, else in a new one; repositories compose either way. */
export function withTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn)
}

/** The unique index or constraint a failed statement ran into (SQLSTATE 23505), if that was the failure. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: unknown; constraint?: unknown } | null
  return e?.code === '23505' && typeof e.constraint === 'string' ? e.constraint : undefined
}
