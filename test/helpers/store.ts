import { pino } from 'pino'
import { cleanUpAfter } from './cleanup.ts'
import { openDataStore, type DataStore } from '../../src/infra/db.ts'
import { migrateToLatest } from '../../src/infra/migrate.ts'
import { embeddedTemplate, freshDatabaseUrl } from './database.ts'

export const silentLog = pino({ level: 'silent' })

/** A migrated data store on a fresh database (or on `url`, for a second connection to the same one). */
export async function openTestStore(url?: string): Promise<DataStore & { url: string }> {
  const databaseUrl = url ?? (await freshDatabaseUrl())
  const store = await openDataStore({
    databaseUrl,
    dataDir: '/tmp/wps-test-data',
    log: silentLog,
    embeddedTemplate: databaseUrl === 'memory://' ? embeddedTemplate() : undefined,
  })
  await migrateToLatest(store.db)
  cleanUpAfter(() => store.close())
  return Object.assign(store, { url: databaseUrl })
}
