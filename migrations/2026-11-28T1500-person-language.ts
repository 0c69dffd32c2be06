import { type Kysely, sql } from 'kysely'

/** The language a person chose for the dashboard and their mail (DESIGN.md 17): de, en or fr; null until they choose or first sign in. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users add column language text check (language in ('de', 'en', 'fr'))`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table users drop column language`.execute(db)
}
