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

describe('migration 2026-11-25T1124-site-subdomains', () => {
  it('gives existing sites unique slugs from their names, oldest first, and every later row one too', async () => {
    expect((await migrator.migrateTo('2026-11-24T1010-backlink-detections')).error).toBeUndefined()
    await sql`insert into sites (id, name, created_at) values
      ('site_a', 'Café Crème', '2026-01-01T00:00:00Z'),
      ('site_b', 'café  crème!', '2026-01-02T00:00:00Z'),
      ('site_c', 'WWW', '2026-01-03T00:00:00Z'),
      ('site_d', '日本', '2026-01-04T00:00:00Z'),
      ('site_e', 'Café Crème', '2026-01-05T00:00:00Z')`.execute(store.db)
    expect((await migrator.migrateTo('2026-11-25T1124-site-subdomains')).error).toBeUndefined()

    const rows = await sql<{ id: string; slug: string }>`select id, slug from sites order by id`.execute(store.db)
    expect(rows.rows).toEqual([
      { id: 'site_a', slug: 'cafe-creme' },
      { id: 'site_b', slug: 'cafe-creme-2' },
      { id: 'site_c', slug: 'www-site' },
      { id: 'site_d', slug: 'site' },
      { id: 'site_e', slug: 'cafe-creme-3' },
    ])
    await sql`insert into sites (id, name) values ('site_f', 'Written by hand')`.execute(store.db)
    const made = await sql<{ slug: string }>`select slug from sites where id = 'site_f'`.execute(store.db)
    expect(made.rows[0]?.slug).toMatch(/^site-[0-9a-f]{12}$/)
    await expect(sql`update sites set slug = 'cafe-creme' where id = 'site_f'`.execute(store.db)).rejects.toThrow()
  })
})
