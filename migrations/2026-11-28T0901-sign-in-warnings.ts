import { type Kysely, sql } from 'kysely'

/**
 * When an address last got the mail saying that someone keeps asking for sign-in codes for it
 * (after the daily cap): at most one such mail a day, so the warning cannot itself flood the inbox.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table sign_in_warnings (email_hash text primary key, warned_at timestamptz not null)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table sign_in_warnings`.execute(db)
}
