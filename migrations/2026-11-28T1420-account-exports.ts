import { type Kysely, sql } from 'kysely'

/**
 * Exports of an account (DESIGN.md 19): one zip made by a job, kept 7 days in the database (every
 * instance can serve it, on either driver), then its bytes are dropped by the job that made it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table account_exports (
    id text primary key,
    account_id text not null references accounts(id) on delete cascade,
    requested_by text,
    status text not null default 'pending' check (status in ('pending', 'ready', 'failed', 'expired')),
    archive bytea,
    size_bytes int,
    error text,
    created_at timestamptz not null default now(),
    finished_at timestamptz,
    expires_at timestamptz
  )`.execute(db)
  await sql`create index account_exports_account on account_exports (account_id, created_at desc)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table account_exports`.execute(db)
}
