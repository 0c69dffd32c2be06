import { promises as fs } from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import { FileMigrationProvider, Migrator } from 'kysely/migration'
import { pino } from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { openDataStore } from '../../src/infra/db.ts'
import { migrationFolder } from '../../src/infra/migrate.ts'
import { freshDatabaseUrl } from '../helpers/database.ts'

const store = await openDataStore({
  databaseUrl: await freshDatabaseUrl({ empty: true }),
  dataDir: '/tmp/wps-test-data',
  log: pino({ level: 'silent' }),
})
afterAll(() => store.close())
const migrator = new Migrator({ db: store.db, provider: new FileMigrationProvider({ fs, path, migrationFolder }) })

describe('migration 2026-11-23T1100-site-content', () => {
  it('moves site hostnames into active primary domains and suspended sites to offline', async () => {
    const before = await migrator.migrateTo('2026-11-23T1000-accounts-and-api')
    expect(before.error).toBeUndefined()
    await sql`insert into sites (id, name, hostname, status, default_locale) values
      ('site_old_live', 'Live', 'live.example', 'live', 'de'),
      ('site_old_gone', 'Gone', 'gone.example', 'suspended', 'en'),
      ('site_old_draft', 'Draft', 'draft.example', 'draft', 'fr')`.execute(store.db)
    const after = await migrator.migrateTo('2026-11-23T1100-site-content')
    expect(after.error).toBeUndefined()

    const sites = await store.db.selectFrom('sites').select(['id', 'status', 'locales', 'published_at']).orderBy('id').execute()
    expect(sites.map((s) => [s.id, s.status, s.locales, s.published_at !== null])).toEqual([
      ['site_old_draft', 'draft', ['fr'], false],
      ['site_old_gone', 'offline', ['en'], false],
      ['site_old_live', 'live', ['de'], true],
    ])
    const domains = await store.db.selectFrom('domains').select(['site_id', 'hostname', 'status', 'primary']).orderBy('site_id').execute()
    expect(domains).toEqual([
      { site_id: 'site_old_draft', hostname: 'draft.example', status: 'active', primary: true },
      { site_id: 'site_old_gone', hostname: 'gone.example', status: 'active', primary: true },
      { site_id: 'site_old_live', hostname: 'live.example', status: 'active', primary: true },
    ])
    await expect(sql`insert into sites (id, name, status) values ('site_bad', 'Bad', 'suspended')`.execute(store.db)).rejects.toThrow()
  })
})
