import { type Kysely, sql } from 'kysely'

/**
 * Jobs are claimed in the order they fell due, whatever their name: an index by due time over the
 * queued jobs (and one by lease end over the running ones) lets a claim read the first few rows
 * instead of sorting the whole backlog, which with ten thousand jobs waiting cost milliseconds
 * a claim.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index jobs_queued_by_time on jobs (run_at) where state = 'queued'`.execute(db)
  await sql`create index jobs_running_by_lease on jobs (lease_until) where state = 'running'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index jobs_running_by_lease`.execute(db)
  await sql`drop index jobs_queued_by_time`.execute(db)
}
