import { sql } from 'kysely'
import { errors } from '../../errors.ts'
import type { Db } from '../../infra/db.ts'
import { type SpanPieces, spanPieces } from './blocks.ts'
import { ITEM_KINDS, type ItemKind } from './tally.ts'
import type { DeviceKind } from './classify.ts'

/** A site's statistics over a span of days, in the shape of DESIGN.md 18 (the REST answer). */
export interface SiteStats {
  from: string
  to: string
  totals: { visitors: number; pageviews: number; conversions: number }
  days: Array<{ date: string; visitors: number; pageviews: number }>
  pages: Array<{ path: string; pageviews: number; visitors: number }>
  referrers: Array<{ host: string; visitors: number }>
  devices: Array<{ kind: DeviceKind; visitors: number }>
}

/** What the dashboard shows beyond it: conversions per day, browsers and campaigns. */
export interface SiteStatsDetail extends SiteStats {
  conversionsByDay: number[]
  browsers: Array<{ name: string; visitors: number }>
  campaigns: Array<{ kind: 'utm_source' | 'utm_medium' | 'utm_campaign'; value: string; visitors: number; pageviews: number }>
}

/** The longest span one answer covers (a little over a year). */
export const STATS_MAX_DAYS = 400
/** The longest lists of pages, referrers and campaigns an answer carries, most visited first. */
export const STATS_LIST_MAX = 50

/** Days from `from` to `to` (YYYY-MM-DD), both included. */
export function spanDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1
}

/** The day `n` days after (or before, when negative) `day`. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
}

/** The span of days every interface asks for by default: the last 30 days, today included. */
export const STATS_DEFAULT_DAYS = 30

const DAY = /^\d{4}-\d{2}-\d{2}$/
const isDay = (value: string) => {
  const at = Date.parse(`${value}T00:00:00Z`)
  // Date.parse rolls 2026-02-30 over to March: the day must read back the same.
  return DAY.test(value) && !Number.isNaN(at) && new Date(at).toISOString().startsWith(value)
}

/**
 * The span a request names (`from`, `to`, YYYY-MM-DD, both included), checked: each a real date,
 * `from` not after `to`, at most STATS_MAX_DAYS days. Without `to`, today (UTC); without `from`,
 * the 30 days up to `to`.
 */
export function statsSpan(input: { from?: string | undefined; to?: string | undefined }, now = Date.now()): { from: string; to: string } {
  if (input.from !== undefined && !isDay(input.from)) throw new errors.validationFailed('from: must be a date as YYYY-MM-DD')
  if (input.to !== undefined && !isDay(input.to)) throw new errors.validationFailed('to: must be a date as YYYY-MM-DD')
  const to = input.to ?? new Date(now).toISOString().slice(0, 10)
  const from = input.from ?? addDays(to, -(STATS_DEFAULT_DAYS - 1))
  if (from > to) throw new errors.validationFailed('from: must not be after to')
  if (spanDays(from, to) > STATS_MAX_DAYS) throw new errors.validationFailed(`to: a span covers at most ${STATS_MAX_DAYS} days`)
  return { from, to }
}

/**
 * A site's statistics from `from` to `to` (UTC days, both included): the totals (visitors are
 * counted per day, so a visitor of two days counts twice), every day of the span (zeros included),
 * the most viewed pages, the referrers and devices by visitors. Reads the roll-ups only: the days
 * and, for the items, the blocks of days that cover most of the span (blocks.ts).
 */
export async function siteStats(db: Db, siteId: string, from: string, to: string): Promise<SiteStatsDetail> {
  const [days, items] = await Promise.all([
    sql<{ date: string; pageviews: number; visitors: number; conversions: number }>`
      select g.day::date::text as date, coalesce(d.pageviews, 0)::float8 as pageviews, coalesce(d.visitors, 0)::float8 as visitors,
        coalesce(d.conversions, 0)::float8 as conversions
      from generate_series(${from}::date, ${to}::date, interval '1 day') as g(day)
      left join stats_days d on d.site_id = ${siteId} and d.day = g.day::date
      order by g.day`.execute(db),
    rolledThrough(db, siteId).then((through) => rankedItems(db, siteId, spanPieces(from, to, through))),
  ])
  const of = (kind: ItemKind) => items.filter((row) => row.kind === kind)
  const totals = { visitors: 0, pageviews: 0, conversions: 0 }
  for (const day of days.rows) {
    totals.visitors += day.visitors
    totals.pageviews += day.pageviews
    totals.conversions += day.conversions
  }
  return {
    from,
    to,
    totals,
    days: days.rows.map((d) => ({ date: d.date, visitors: d.visitors, pageviews: d.pageviews })),
    pages: of('page').map((r) => ({ path: r.value, pageviews: r.pageviews, visitors: r.visitors })),
    referrers: of('referrer').map((r) => ({ host: r.value, visitors: r.visitors })),
    devices: of('device').map((r) => ({ kind: r.value as DeviceKind, visitors: r.visitors })),
    conversionsByDay: days.rows.map((d) => d.conversions),
    browsers: of('browser').map((r) => ({ name: r.value, visitors: r.visitors })),
    campaigns: items
      .filter((r) => r.kind === 'utm_source' || r.kind === 'utm_medium' || r.kind === 'utm_campaign')
      .map((r) => ({
        kind: r.kind as 'utm_source' | 'utm_medium' | 'utm_campaign',
        value: r.value,
        visitors: r.visitors,
        pageviews: r.pageviews,
      })),
  }
}

async function rolledThrough(db: Db, siteId: string): Promise<string | null> {
  const { rows } = await sql<{ through: string }>`select through::text from stats_rolled where site_id = ${siteId}`.execute(db)
  return rows[0]?.through ?? null
}

/** The pages, referrers, campaigns, devices and browsers of a span, each kind's first STATS_LIST_MAX. */
async function rankedItems(db: Db, siteId: string, { days, blocks }: SpanPieces) {
  const kinds = sql`kind = any(${[...ITEM_KINDS]}::text[])`
  const parts = [
    // Every kind named, so the key (site_id, kind, day, value) is read by day range within each kind.
    ...days.map(
      ({ from, to }) => sql`select kind, value, pageviews, visitors from stats_items
      where site_id = ${siteId} and ${kinds} and day between ${from}::date and ${to}::date`,
    ),
    ...(blocks.length
      ? [
          sql`select kind, value, pageviews, visitors from stats_item_blocks
            where site_id = ${siteId} and ${kinds} and (level, start) in (${sql.join(blocks.map((b) => sql`(${b.level}::int2, ${b.start}::date)`))})`,
        ]
      : []),
  ]
  if (parts.length === 0) return []
  const { rows } = await sql<{ kind: ItemKind; value: string; pageviews: number; visitors: number }>`
    select kind, value, pageviews, visitors from (
      select kind, value, sum(pageviews)::float8 as pageviews, sum(visitors)::float8 as visitors,
        row_number() over (
          partition by kind
          order by case when kind = 'page' then sum(pageviews) else sum(visitors) end desc, sum(visitors) desc, value
        ) as rank
      from (${sql.join(parts, sql` union all `)}) as span
      group by kind, value
    ) ranked
    where rank <= ${STATS_LIST_MAX}
    order by kind, rank`.execute(db)
  return rows
}

/** The DESIGN.md 18 shape alone (REST, GraphQL, MCP). */
export function publicStats(stats: SiteStatsDetail): SiteStats {
  const { from, to, totals, days, pages, referrers, devices } = stats
  return { from, to, totals, days, pages, referrers, devices }
}

/** Conversions per hundred visitors of a span, rounded to one decimal; null without visitors. */
export function conversionRate(totals: { visitors: number; conversions: number }): number | null {
  return totals.visitors === 0 ? null : Math.round((totals.conversions / totals.visitors) * 1000) / 10
}

/**
 * The totals of each of an account's sites from `from` to `to` (UTC days, both included), the
 * sites in the order the site list shows them (oldest first), at most `limit` of them.
 */
export async function accountSiteTotals(
  db: Db,
  accountId: string,
  from: string,
  to: string,
  limit = 100,
): Promise<Array<{ siteId: string; name: string; visitors: number; pageviews: number; conversions: number }>> {
  const { rows } = await sql<{ siteId: string; name: string; visitors: number; pageviews: number; conversions: number }>`
    select s.id as "siteId", s.name, coalesce(sum(d.visitors), 0)::float8 as visitors, coalesce(sum(d.pageviews), 0)::float8 as pageviews,
      coalesce(sum(d.conversions), 0)::float8 as conversions
    from (select id, name, created_at from sites where account_id = ${accountId} order by created_at, id limit ${limit}) s
    left join stats_days d on d.site_id = s.id and d.day between ${from}::date and ${to}::date
    group by s.id, s.name, s.created_at
    order by s.created_at, s.id`.execute(db)
  return rows
}
