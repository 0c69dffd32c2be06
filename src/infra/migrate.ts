import { promises as fs } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { FileMigrationProvider, Migrator, type MigrationResultSet } from 'kysely/migration'
import type { Db } from './db.ts'

export const migrationFolder = fileURLToPath(new URL('../../migrations', import.meta.url))

// A session-level lock around the whole run (Kysely also takes its own transaction lock), so that
// processes starting together wait for one another instead of racing on the bookkeeping tables.
const MIGRATION_LOCK = 727_001

function migrator(db: Db) {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
  })
}

/** The migrations in the folder by name, as Kysely's FileMigrationProvider names them. */
async function migrationNames(): Promise<string[]> {
  return (await fs.readdir(migrationFolder))
    .filter((file) => /\.(js|mjs|ts|mts)$/.test(file) && !/\.d\.m?ts$/.test(file))
    .map((file) => file.slice(0, file.lastIndexOf('.')))
}

/**
 * The folder's migrations and the names the database has run (none before its first migration),
 * read from the bookkeeping table alone: Kysely's migrator introspects the whole catalogue to find
 * its own tables first, which took 80-170 ms of every start with nothing to do.
 */
async function migrationState(db: Db): Promise<{ known: string[]; applied: Set<string> }> {
  const { rows: found } = await sql<{ present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(db)
  if (!found[0]?.present) return { known: await migrationNames(), applied: new Set() }
  const [known, { rows }] = await Promise.all([migrationNames(), sql<{ name: string }>`select name from kysely_migration`.execute(db)])
  return { known, applied: new Set(rows.map((row) => row.name)) }
}

/** Whether the database has run exactly the folder's migrations, the usual case at a start. */
async function upToDate(db: Db): Promise<boolean> {
  const { known, applied } = await migrationState(db)
  return applied.size === known.length && known.every((name) => applied.has(name))
}

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  if (await upToDate(db)) return { results: [] }
  const result = await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn)
    try {
      return await migrator(conn).migrateToLatest()
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn)
    }
  })
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(result.error)}`, { cause: result.error })
  }
  return result
}

/** True when every migration this code knows has been applied (a newer release may have run more). */
export async function migrationsCurrent(db: Db): Promise<boolean> {
  const { known, applied } = await migrationState(db)
  return known.every((name) => applied.has(name))
}
