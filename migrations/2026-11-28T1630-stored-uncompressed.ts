import { type Kysely, sql } from 'kysely'

/**
 * Columns whose bytes are compressed already (photos' variants, the br and gzip copies of a
 * build's files, export zips) are stored out of line without PostgreSQL's own compression: it
 * would only try and fail on every value, on the writer's time. A photo's twelve variants (3 MB)
 * went in about 80 ms instead of 140. Rows written before keep their form; both read alike.
 */
const COLUMNS = [
  ['media_files', 'body'],
  ['build_files', 'gzip'],
  ['build_files', 'br'],
  ['account_exports', 'archive'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set storage external`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set storage extended`.execute(db)
}
