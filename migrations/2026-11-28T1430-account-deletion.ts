import { type Kysely, sql } from 'kysely'

/**
 * Deleting an account (DESIGN.md 19): asked for, it is suspended 14 days (its live sites offline,
 * remembered in `suspended_status` so a restore puts them back), then erased; the account's row
 * stays as the record, without personal data, with `erased_at`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table accounts add column deletion_requested_at timestamptz, add column erase_after timestamptz, add column erased_at timestamptz`.execute(
    db,
  )
  await sql`alter table sites add column suspended_status text`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table sites drop column suspended_status`.execute(db)
  await sql`alter table accounts drop column deletion_requested_at, drop column erase_after, drop column erased_at`.execute(db)
}
