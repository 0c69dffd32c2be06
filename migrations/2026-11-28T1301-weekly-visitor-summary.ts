import { type Kysely, sql } from 'kysely'

/**
 * The weekly visitor summary by mail (DESIGN.md 18) for plans without scheduled SEO reports:
 * whether the account's owner asked for it, and the ISO week ("2026-W48") of the last one sent,
 * claimed before the mail goes out so that a retried run sends no week twice.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table accounts add column weekly_stats_mail boolean not null default false`.execute(db)
  await sql`alter table accounts add column weekly_stats_mailed text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table accounts drop column weekly_stats_mailed`.execute(db)
  await sql`alter table accounts drop column weekly_stats_mail`.execute(db)
}
