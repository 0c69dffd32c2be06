// Applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR) and exits;
// a failure exits non-zero with the failing migration named.
import { pino } from 'pino'
import { loadConfig } from '../src/config.ts'
import { openDataStore } from '../src/infra/db.ts'
import { migrateToLatest } from '../src/infra/migrate.ts'

const log = pino({ level: 'info' })
try {
  const config = loadConfig()
  const store = await openDataStore({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, log })
  try {
    const { results = [] } = await migrateToLatest(store.db)
    for (const r of results) log.info({ migration: r.migrationName, status: r.status }, 'migration')
    log.info({ applied: results.length }, results.length ? 'database migrated' : 'database already current')
  } finally {
    await store.close()
  }
} catch (error) {
  log.error({ err: error }, 'migration failed')
  process.exitCode = 1
}
