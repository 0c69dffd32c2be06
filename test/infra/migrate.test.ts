import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrateToLatest, migrationsCurrent } from '../../src/infra/migrate.ts'
import { openTestStore } from '../helpers/store.ts'

// A start with nothing to migrate answers from the bookkeeping table alone; anything else (a
// migration missing, one the code does not know) still goes through Kysely's migrator.
describe('migrateToLatest', () => {
  it('does nothing on a database that has run exactly the known migrations', async () => {
    const store = await openTestStore()
    const before = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name`.execute(
      store.db,
    )
    expect(await migrateToLatest(store.db)).toEqual({ results: [] })
    expect((await sql`select name, timestamp from kysely_migration order by name`.execute(store.db)).rows).toEqual(before.rows)
    expect(await migrationsCurrent(store.db)).toBe(true)
  })

  it('applies a migration the database has not run', async () => {
    const store = await openTestStore()
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`.execute(store.db)
    const latest = rows[0]!.name
    // The newest migration undone by hand, then forgotten: the next start must run it again.
    await sql`delete from kysely_migration where name = ${latest}`.execute(store.db)
    expect(await migrationsCurrent(store.db)).toBe(false)
    const redone = await migrateToLatest(store.db).catch((error: Error) => error)
    // Whether its statements can run twice is the migration's business; what matters is that it was attempted.
    if (redone instanceof Error) expect(redone.message).toContain(latest)
    else expect(redone.results?.map((r) => r.migrationName)).toEqual([latest])
  })

  it('refuses a database that has run a migration this code does not know', async () => {
    const store = await openTestStore()
    await sql`insert into kysely_migration (name, timestamp) values ('2099-01-01T0000-from-a-newer-release', '2099-01-01T00:00:00.000Z')`.execute(
      store.db,
    )
    // A database ahead of this code (a newer release ran) still holds everything it needs: ready, not migrated back.
    expect(await migrationsCurrent(store.db)).toBe(true)
    await expect(migrateToLatest(store.db)).rejects.toThrow(/2099-01-01T0000-from-a-newer-release/)
  })
})

describe('the schema', () => {
  it('stores compressed bytes (variants, br and gzip copies, export zips) out of line without compressing them again', async () => {
    const store = await openTestStore()
    const { rows } = await sql<{ column: string; storage: string }>`
      select c.relname || '.' || a.attname as column, a.attstorage as storage
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      where (c.relname, a.attname) in (('media_files', 'body'), ('build_files', 'gzip'), ('build_files', 'br'), ('account_exports', 'archive'), ('build_files', 'body'))
      order by 1`.execute(store.db)
    expect(rows).toEqual([
      { column: 'account_exports.archive', storage: 'e' },
      // A page's own bytes are text, which PostgreSQL's compression does shrink.
      { column: 'build_files.body', storage: 'x' },
      { column: 'build_files.br', storage: 'e' },
      { column: 'build_files.gzip', storage: 'e' },
      { column: 'media_files.body', storage: 'e' },
    ])
  })
})
