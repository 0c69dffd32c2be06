import { sql } from 'kysely'
import { rollUpSite } from '../../src/domain/stats/blocks.ts'
import { addDays } from '../../src/domain/stats/report.ts'
import type { Db } from '../../src/infra/db.ts'

/**
 * What counting leaves of a busy day, per kind of item: how many distinct values and how many page
 * views they share (the first value most, falling off as 1/rank). A site with 100,000 page views
 * a day from 30,000 visitors: 500 pages, 300 referrer hosts, 50 UTM sources, 10 mediums, 40
 * campaigns, 3 device classes, 10 browsers; 913 rows of stats_items a day.
 */
const BUSY_DAY: ReadonlyArray<readonly [kind: string, values: number, pageviews: number]> = [
  ['page', 500, 100_000],
  ['referrer', 300, 30_000],
  ['utm_source', 50, 10_000],
  ['utm_medium', 10, 10_000],
  ['utm_campaign', 40, 10_000],
  ['device', 3, 100_000],
  ['browser', 10, 100_000],
]

export const BUSY_DAY_ROWS = BUSY_DAY.reduce((sum, [, values]) => sum + values, 0)

/**
 * Fills a site's daily roll-ups for the `days` days up to `to` (YYYY-MM-DD) as counting would
 * have left them on a site with 100,000 page views a day, rolls the days before `to` up into
 * blocks as the daily job does, and analyzes the tables.
 */
export async function fillBusyDays(db: Db, siteId: string, days: number, to: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // A year of a busy site is 365,000 rows: more than the service's statement timeout allows.
    await sql`set local statement_timeout = 0`.execute(trx)
    await fill(trx, siteId, days, to)
  })
  await rollUpSite(db, siteId, addDays(to, -1))
  await sql`analyze stats_days`.execute(db)
  await sql`analyze stats_items`.execute(db)
  await sql`analyze stats_item_blocks`.execute(db)
}

async function fill(db: Db, siteId: string, days: number, to: string): Promise<void> {
  const from = sql`${to}::date - ${days - 1}::int`
  await sql`insert into stats_days (site_id, day, pageviews, visitors, conversions)
    select ${siteId}, d::date, 100000, 30000, 40 from generate_series(${from}, ${to}::date, interval '1 day') d`.execute(db)
  const kinds = sql.join(BUSY_DAY.map(([kind, values, pageviews]) => sql`(${kind}, ${values}::int, ${pageviews}::int)`))
  await sql`insert into stats_items (site_id, day, kind, value, pageviews, visitors)
    select ${siteId}, d::date, k.kind,
      case k.kind when 'page' then '/page-' || g when 'referrer' then 'site-' || g || '.example'
        when 'device' then (array['mobile', 'desktop', 'tablet'])[g] else k.kind || '-' || g end,
      greatest(1, k.pageviews * 0.15 / g)::int8, greatest(1, k.pageviews * 0.05 / g)::int8
    from generate_series(${from}, ${to}::date, interval '1 day') d
    cross join (values ${kinds}) as k(kind, n, pageviews)
    cross join lateral generate_series(1, k.n) g`.execute(db)
}
