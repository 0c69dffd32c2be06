import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { translator, type Translator } from '../i18n/translator.ts'
import { addDays, conversionRate, siteStats } from './report.ts'

/** Visitors, page views and conversions of a site's days from `from` to `to`, added up. */
async function spanTotals(db: Db, siteId: string, from: string, to: string) {
  const { rows } = await sql<{ visitors: number; pageviews: number; conversions: number }>`
    select coalesce(sum(visitors), 0)::float8 as visitors, coalesce(sum(pageviews), 0)::float8 as pageviews,
      coalesce(sum(conversions), 0)::float8 as conversions
    from stats_days where site_id = ${siteId} and day between ${from}::date and ${to}::date`.execute(db)
  return rows[0]!
}

/** A number against the same span before it, in the mail's language: the same, up or down by how much. */
function change(t: Translator, now: number, before: number, days: number): string {
  const way = now === before ? 'same' : now > before ? 'up' : 'down'
  return t.t('mail.visits.change', { way, by: t.number(Math.abs(now - before)), days })
}

/**
 * The statistics of a mail (DESIGN.md 18): the `days` whole days before `day` (so a report sent
 * on any hour of a Tuesday speaks of the week to Monday), set beside the same number of days
 * before them, with the most viewed page and the link to the Statistics page.
 */
export async function statsMailLines(
  db: Db,
  siteId: string,
  days: number,
  day: string,
  statsUrl: string,
  t: Translator = translator('en'),
): Promise<string[]> {
  const to = addDays(day, -1)
  const from = addDays(to, -(days - 1))
  const [stats, before] = await Promise.all([
    siteStats(db, siteId, from, to),
    spanTotals(db, siteId, addDays(from, -days), addDays(from, -1)),
  ])
  const { totals } = stats
  const rate = conversionRate(totals)
  const top = stats.pages[0]
  const count = (n: number) => t.number(n)
  return [
    t.t('mail.visits.head', { from, to }),
    t.t('mail.visits.visitors', { n: count(totals.visitors), change: change(t, totals.visitors, before.visitors, days) }),
    t.t('mail.visits.pageviews', { n: count(totals.pageviews) }),
    t.t('mail.visits.conversions', {
      n: count(totals.conversions),
      change: change(t, totals.conversions, before.conversions, days),
      rate: rate === null || totals.conversions === 0 ? 'none' : t.number(rate),
    }),
    ...(top ? [t.t('mail.visits.top', { path: top.path, views: top.pageviews })] : []),
    t.t('mail.visits.link', { url: statsUrl }),
  ]
}
