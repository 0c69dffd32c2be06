import { sql } from 'kysely'
import type { Db } from '../../../infra/db.ts'
import { CruxUnavailableError } from './crux.ts'

/** The Chrome UX Report API's quota per Google Cloud project. */
export const CRUX_QUERIES_PER_MINUTE = 150

/**
 * Reserves `count` CrUX queries in the current minute, in the database so that every instance
 * draws on one budget. Refuses (CruxUnavailableError with the seconds left in the minute) when the
 * minute's budget would be exceeded; a refused reservation is given back.
 */
export async function reserveCruxQueries(db: Db, count: number, limit = CRUX_QUERIES_PER_MINUTE): Promise<void> {
  const { rows } = await sql<{ used: number; seconds_left: number }>`
    insert into cwv_quota (window_start, used) values (date_trunc('minute', now()), ${count})
    on conflict (window_start) do update set used = cwv_quota.used + excluded.used
    returning used, ceil(60 - extract(epoch from now() - date_trunc('minute', now())))::int as seconds_left`.execute(db)
  const row = rows[0]!
  if (row.used > limit) {
    await sql`update cwv_quota set used = used - ${count} where window_start = date_trunc('minute', now())`.execute(db)
    throw new CruxUnavailableError('The Chrome UX Report query budget for this minute is used up', Math.max(1, row.seconds_left))
  }
  // Old windows are of no further use; keep the table small.
  if (Math.random() < 0.02) await sql`delete from cwv_quota where window_start < now() - interval '1 hour'`.execute(db)
}
