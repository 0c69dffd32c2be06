import { type Kysely, sql } from 'kysely'

/**
 * Members in the order they joined, even within one clock tick. `created_at` is the transaction's
 * start: two memberships made in one transaction, or (on the embedded database, whose clock has
 * millisecond steps) in two quick ones, carried the same time, and the tie was broken by a
 * random id, so an account's first owner (whose email names the account) could change from one
 * read to the next. `seq` counts insertions; rows already there are numbered as the table holds
 * them, which for a table only ever inserted into is the order they came in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table account_members add column seq bigint generated always as identity`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table account_members drop column seq`.execute(db)
}
