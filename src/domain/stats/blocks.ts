import { type RawBuilder, sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { ITEM_KINDS } from './tally.ts'

/**
 * Blocks of days (migration 2026-11-28T1600): the daily rows of `stats_items` summed over aligned
 * spans of 2^level days, so a span of 90 days is read as a dozen blocks and a few days rather than
 * as 90 days of rows. A block is only made once every one of its days is over, from the two blocks
 * of the level below (the days themselves for level 1), and `stats_rolled` records the last day a
 * site's blocks cover; what comes after it is read from the daily rows.
 */
export const TOP_LEVEL = 8

const DAY_MS = 86_400_000
const numberOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS
const dayAt = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10)
const size = (level: number) => 2 ** level

export interface Block {
  level: number
  start: string
}

/** How a span is read: runs of days from the daily rows, and whole blocks. */
export interface SpanPieces {
  days: Array<{ from: string; to: string }>
  blocks: Block[]
}

/**
 * The pieces of the span `from`..`to` (both included) for a site whose blocks cover the days up to
 * `rolledThrough` (null: none): from the start, the largest aligned block that fits before
 * `rolledThrough` and `to`, else a day; after `rolledThrough`, the days. At most two blocks of a
 * size, so at most 2 × TOP_LEVEL blocks and a few runs of days whatever the span.
 */
export function spanPieces(from: string, to: string, rolledThrough: string | null): SpanPieces {
  const pieces: SpanPieces = { days: [], blocks: [] }
  const end = numberOf(to)
  const closedEnd = rolledThrough === null ? -1 : Math.min(end, numberOf(rolledThrough))
  const addDays = (first: number, last: number) => {
    const previous = pieces.days.at(-1)
    if (previous && numberOf(previous.to) === first - 1) previous.to = dayAt(last)
    else pieces.days.push({ from: dayAt(first), to: dayAt(last) })
  }
  let at = numberOf(from)
  while (at <= closedEnd) {
    let level = TOP_LEVEL
    while (level > 0 && (at % size(level) !== 0 || at + size(level) - 1 > closedEnd)) level--
    if (level === 0) addDays(at, at)
    else pieces.blocks.push({ level, start: dayAt(at) })
    at += size(level)
  }
  if (at <= end) addDays(at, end)
  return pieces
}

/** (Re)makes one block of a site from the level below. */
async function makeBlock(db: Db, siteId: string, { level, start }: Block): Promise<void> {
  const half = size(level - 1)
  const below =
    level === 1
      ? sql`select kind, value, pageviews, visitors from stats_items
          where site_id = ${siteId} and kind = any(${[...ITEM_KINDS]}::text[]) and day between ${start}::date and ${start}::date + 1`
      : sql`select kind, value, pageviews, visitors from stats_item_blocks
          where site_id = ${siteId} and kind = any(${[...ITEM_KINDS]}::text[]) and level = ${level - 1}
            and start in (${start}::date, ${start}::date + ${half}::int)`
  await sql`delete from stats_item_blocks where site_id = ${siteId} and level = ${level} and start = ${start}::date`.execute(db)
  await sql`insert into stats_item_blocks (site_id, kind, level, start, value, pageviews, visitors)
    select ${siteId}, kind, ${level}, ${start}::date, value, sum(pageviews), sum(visitors) from (${below}) b
    group by kind, value`.execute(db)
}

/**
 * Makes the blocks of a site that end after the day its blocks last covered and on or before
 * `through` (a day that is over), each level after the one below, and records `through`. A site's
 * first roll-up starts from its first counted day.
 */
export async function rollUpSite(db: Db, siteId: string, through: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ after: string | null }>`
      select coalesce((select through::text from stats_rolled where site_id = ${siteId} for update),
        (select (min(day) - 1)::text from stats_items where site_id = ${siteId})) as after`.execute(trx)
    const after = rows[0]?.after
    if (after) {
      for (let day = numberOf(after) + 1; day <= numberOf(through); day++)
        for (let level = 1; level <= TOP_LEVEL && (day + 1) % size(level) === 0; level++)
          await makeBlock(trx, siteId, { level, start: dayAt(day - size(level) + 1) })
    }
    await sql`insert into stats_rolled (site_id, through) values (${siteId}, ${through}::date)
      on conflict (site_id) do update set through = greatest(stats_rolled.through, excluded.through)`.execute(trx)
  })
}

/** Rolls up the days before `today` of every site counted since its last roll-up. Answers how many sites. */
export async function rollUpStats(db: Db, today: string): Promise<number> {
  const through = dayAt(numberOf(today) - 1)
  const { rows } = await sql<{ siteId: string }>`
    select distinct d.site_id as "siteId" from stats_days d left join stats_rolled r on r.site_id = d.site_id
    where d.day <= ${through}::date and (r.through is null or d.day > r.through)`.execute(db)
  for (const { siteId } of rows) await rollUpSite(db, siteId, through)
  return rows.length
}

/**
 * After the daily rows before each site's retention were deleted: the blocks that ended before
 * it go, and those it cuts through are made again from what is left, smallest first, so every
 * block still holds exactly the sum of its days.
 */
export async function trimBlocks(db: Db, firstKept: (table: string) => RawBuilder<unknown>): Promise<void> {
  await sql`delete from stats_item_blocks where start + (power(2, level)::int - 1) < ${firstKept('stats_item_blocks')}`.execute(db)
  const { rows } = await sql<{ siteId: string; level: number; start: string }>`
    select distinct site_id as "siteId", level, start::text as start from stats_item_blocks
    where start < ${firstKept('stats_item_blocks')} order by level`.execute(db)
  for (const { siteId, level, start } of rows) await makeBlock(db, siteId, { level, start })
}
