import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { addDays, conversionRate, siteStats } from './report.ts'

/** Visitors, page views and conversions of a site's days from `from` to `to`, added up. */
async function spanTotals(db: Db, siteId: string, from: string, to: string) {
  const { rows } = await sql<{ visitors: number; pageviews: number; conversions: number }>`
    select coalesce(sum(visitors), 0)::float8 as visitors, coalesce(sum(pageviews), 0)::float8 as pageviews,
      coalesce(sum(conversions), 0)::float8 as conversions
    from stats_days where site_id = ${siteId} and day between ${from}::date and ${to}::date`.execute(db)
  return rows[0]!
}

const count = (n: number) => n.toLocaleString('en')

function change(now: number, before: number, span: string): string {
  if (now === before) return `the same as the ${span} before`
  return `${now > before ? 'up' : 'down'} ${count(Math.abs(now - before))} from the ${span} before`
}

/**
 * The statistics of a mail (DESIGN.md 18): the `days` whole days before `day` (so a report sent
 * on any hour of a Tuesday speaks of the week to Monday), set beside the same number of days
 * before them, with the most viewed page and the link to the Statistics page.
 */
export async function statsMailLines(db: Db, siteId: string, days: number, day: string, statsUrl: string): Promise<string[]> {
  const to = addDays(day, -1)
  const from = addDays(to, -(days - 1))
  const [stats, before] = await Promise.all([
    siteStats(db, siteId, from, to),
    spanTotals(db, siteId, addDays(from, -days), addDays(from, -1)),
  ])
  const span = days === 7 ? 'week' : `${days} days`
  const { totals } = stats
  const rate = conversionRate(totals)
  const top = stats.pages[0]
  return [
    `Your visitors from ${from} to ${to} (counted without cookies):`,
    `- Visitors: ${count(totals.visitors)} (${change(totals.visitors, before.visitors, span)})`,
    `- Page views: ${count(totals.pageviews)}`,
    `- Messages and leads: ${count(totals.conversions)} (${change(totals.conversions, before.conversions, span)})${rate === null || totals.conversions === 0 ? '' : `, ${rate} per hundred visitors`}`,
    ...(top ? [`- Most viewed page: ${top.path} (${count(top.pageviews)} views)`] : []),
    `Statistics of your site: ${statsUrl}`,
  ]
}
