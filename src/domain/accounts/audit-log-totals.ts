import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'

const DAY_MS = 86_400_000
const startOfDay = (at: Date) => Math.floor(at.getTime() / DAY_MS) * DAY_MS
const endOfDay = (at: Date) => Math.ceil(at.getTime() / DAY_MS) * DAY_MS
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * The number of an account's audit records in [since, until), from the day counts that triggers
 * keep with every write (migration list-totals): whole UTC days are summed from at most a few
 * rows a day, and only a partial first or last day is counted record by record. Its cost
 * therefore follows the days asked for, not the number of records. Answers undefined when
 * `filter` narrows by anything else than time, which the day counts do not know.
 */
export async function countAuditRecordsByDay(
  db: Db,
  accountId: string,
  filter: { since?: Date; until?: Date },
): Promise<number | undefined> {
  if (Object.entries(filter).some(([key, value]) => key !== 'since' && key !== 'until' && value !== undefined)) return undefined
  const { since, until } = filter
  const first = since ? endOfDay(since) : undefined
  const last = until ? startOfDay(until) : undefined
  if (first !== undefined && last !== undefined && first >= last) {
    // Within one or two partial days: no whole day to sum.
    const { rows } = await sql<{
      n: string
    }>`select count(*) as n from audit_log where account_id = ${accountId} and "at" >= ${since} and "at" < ${until}`.execute(db)
    return Number(rows[0]!.n)
  }
  const days = sql.join(
    [
      sql`account_id = ${accountId}`,
      ...(first !== undefined ? [sql`day >= ${isoDay(first)}::date`] : []),
      ...(last !== undefined ? [sql`day < ${isoDay(last)}::date`] : []),
    ],
    sql` and `,
  )
  const partial = [
    ...(since && first !== undefined && since.getTime() < first ? [sql`("at" >= ${since} and "at" < ${new Date(first)})`] : []),
    ...(until && last !== undefined && until.getTime() > last ? [sql`("at" >= ${new Date(last)} and "at" < ${until})`] : []),
  ]
  const edges = partial.length
    ? sql`(select count(*) from audit_log where account_id = ${accountId} and (${sql.join(partial, sql` or `)}))`
    : sql`0`
  const { rows } = await sql<{
    n: string
  }>`select coalesce((select sum(calls) from audit_log_days where ${days}), 0) + ${edges} as n`.execute(db)
  return Number(rows[0]!.n)
}
