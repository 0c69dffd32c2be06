import type { Compilable, CompiledQuery, RawBuilder } from 'kysely'
import type pg from 'pg'
import type { Db } from './db.ts'

/**
 * Hot reads run as named prepared statements on PostgreSQL. Such a read is parsed and planned
 * once per connection instead of on every call: for a site with its primary domain (a correlated
 * subquery) that took PostgreSQL's work from about 72 to 23 µs a call. Only statements a
 * repository asks for are prepared, so each connection holds a small, fixed set; the embedded
 * database ignores the names.
 */
const names = new Map<string, string>()
const MAX_PREPARED = 200

/** A database's own path for one statement outside a transaction (the pool's, on PostgreSQL). */
export type DirectQuery = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>
const directs = new WeakMap<Db, DirectQuery>()

/**
 * Registers the path a hot read of `db` itself takes past the query builder's driver. A
 * transaction is another handle and keeps Kysely's, so its reads stay inside it.
 */
export function runDirect(db: Db, direct: DirectQuery): void {
  directs.set(db, direct)
}

/** The direct path registered for `db`, if any (a test wraps it to see the statements sent). */
export function directQueryOf(db: Db): DirectQuery | undefined {
  return directs.get(db)
}

/** The statement name of an SQL text that runs prepared, if it does. */
export function preparedName(text: string): string | undefined {
  return names.get(text)
}

/** Runs a query (a query builder's, or raw SQL of fixed text) as a named prepared statement (the same rows as `.execute()`). */
export async function executePrepared<R>(db: Db, query: Compilable<R> | RawBuilder<R>): Promise<R[]> {
  const compiled = 'isRawBuilder' in query ? query.compile(db) : query.compile()
  if (!names.has(compiled.sql) && names.size < MAX_PREPARED) names.set(compiled.sql, `wps_${names.size + 1}`)
  return (await db.executeQuery(compiled)).rows
}

/**
 * A hot read built once: `build` runs on first use with a placeholder for each argument, and its
 * compiled SQL is kept; every call binds its own arguments in their places and runs prepared.
 * A request's kysely builder and compiler cost more than the row lookup they describe (a
 * tenth of a 50-site list's CPU). `build` must give the same SQL whatever the argument values.
 * On the database itself (not a transaction) it runs on the pool's direct path (`runDirect`).
 *
 *   const siteById = preparedQuery((db, accountId: string, id: string) => db.selectFrom('sites')…)
 *   const rows = await siteById(db, accountId, id)
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R> | RawBuilder<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  let plan: { compiled: CompiledQuery<R>; slots: Array<{ arg: number } | { value: unknown }> } | undefined
  return async (db, ...args) => {
    if (!plan) {
      const placeholders = args.map((_, i) => `\u0000placeholder ${i}\u0000`)
      const query = build(db, ...(placeholders as A))
      const compiled = 'isRawBuilder' in query ? query.compile(db) : query.compile()
      const slots = compiled.parameters.map((value) => {
        const arg = placeholders.indexOf(value as string)
        return arg >= 0 ? { arg } : { value }
      })
      if (slots.filter((slot) => 'arg' in slot).length < args.length)
        throw new Error('preparedQuery: every argument must be a parameter of the query')
      if (!names.has(compiled.sql) && names.size < MAX_PREPARED) names.set(compiled.sql, `wps_${names.size + 1}`)
      plan = { compiled, slots }
    }
    const parameters = plan.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value))
    // Kysely's driver (connection provider, runtime driver, result transform) allocated a fifth
    // of a /mcp read's database work for a statement that needs none of it.
    const direct = directs.get(db)
    if (direct) return (await direct(plan.compiled.sql, parameters)).rows as R[]
    return (await db.executeQuery<R>({ ...plan.compiled, parameters })).rows
  }
}

/** PostgreSQL's answer to a prepared `select t.*` whose table gained or lost a column since it was prepared. */
const CACHED_PLAN_CHANGED = '0A000'

/**
 * `client.query` in its callback form. Its promise form (pg 8.23) left every result's rows
 * reachable until young-generation collections had copied them: in a loop of the 50-site list on
 * 32 connections, 9 MB survived each scavenge instead of 0.17 MB, each pause took 9 ms instead of
 * 0.7, and a fifth fewer lists were read a second.
 */
function send(client: pg.PoolClient, query: pg.QueryConfig): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    client.query(query, (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result)))
  })
}

/**
 * Runs `text` on one connection, prepared when it is a prepared text. A migration that changes a
 * prepared statement's result columns makes PostgreSQL refuse it; outside a transaction the
 * statement is dropped and prepared again at once. Inside one (now aborted) the error stands and
 * `stale` is called so the connection, which still holds the old statement, is not reused.
 */
export async function queryOn(client: pg.PoolClient, text: string, values: unknown[], stale: () => void): Promise<pg.QueryResult> {
  const name = preparedName(text)
  if (!name) return send(client, { text, values })
  try {
    return await send(client, { name, text, values })
  } catch (error) {
    if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error
    try {
      await send(client, { text: `deallocate "${name}"` })
      delete (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements[name]
    } catch {
      stale()
      throw error
    }
    return send(client, { name, text, values })
  }
}
