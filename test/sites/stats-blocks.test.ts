import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { rollUpStats } from '../../src/domain/stats/blocks.ts'
import { addDays, siteStats, spanDays } from '../../src/domain/stats/report.ts'
import { purgeStats } from '../../src/domain/stats/retention.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite } from './helpers.ts'

const LAST = '2026-06-30'
const FIRST = addDays(LAST, -139)

/** Spans across the counted days, from one day to the whole, a few reaching past either end. */
const SPANS: Array<[string, string]> = [
  [FIRST, LAST],
  [addDays(FIRST, -10), addDays(LAST, 3)],
  [addDays(LAST, -89), LAST],
  [addDays(LAST, -29), LAST],
  [addDays(LAST, -6), LAST],
  [LAST, LAST],
  [addDays(FIRST, 13), addDays(FIRST, 77)],
  [addDays(FIRST, 1), addDays(FIRST, 2)],
  [addDays(FIRST, 31), addDays(FIRST, 32 + 63)],
]

describe('statistics blocks: the same figures from blocks of days as from the days', () => {
  let t: TestApp
  let site: Site
  beforeAll(async () => {
    t = await buildTestApp()
    const { accountId } = await makeAccount(t.app, 'free')
    site = await bakerySite(t.app, { accountId, pages: [] })
    // 140 days whose pages, referrers and campaigns come and go from day to day, as counting leaves them.
    await sql`insert into stats_days (site_id, day, pageviews, visitors)
      select ${site.id}, d::date, 10, 4 from generate_series(${FIRST}::date, ${LAST}::date, interval '1 day') d`.execute(t.app.db)
    await sql`insert into stats_items (site_id, day, kind, value, pageviews, visitors)
      select ${site.id}, d::date, k.kind, k.kind || '-' || ((g * (extract(doy from d)::int + 3)) % 17),
        sum(1 + (g * extract(doy from d)::int) % 13), sum(1 + (g + extract(doy from d)::int) % 5)
      from generate_series(${FIRST}::date, ${LAST}::date, interval '1 day') d
      cross join (values ('page'), ('referrer'), ('utm_source'), ('device'), ('browser')) k(kind)
      cross join lateral generate_series(1, 3 + extract(doy from d)::int % 9) g
      group by 1, 2, 3, 4`.execute(t.app.db)
  })

  const allSpans = () => Promise.all(SPANS.map(([from, to]) => siteStats(t.app.db, site.id, from, to)))
  /** The figures read from the days alone: what the site's blocks must add up to. */
  const fromDays = async () => {
    const rolled = await t.app.db.selectFrom('stats_rolled').selectAll().where('site_id', '=', site.id).executeTakeFirst()
    await t.app.db.deleteFrom('stats_rolled').where('site_id', '=', site.id).execute()
    const figures = await allSpans()
    if (rolled) await t.app.db.insertInto('stats_rolled').values(rolled).execute()
    return figures
  }
  const blockCount = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from stats_item_blocks where site_id = ${site.id}`.execute(t.app.db)).rows[0]!.n)

  it('rolls up the days that are over, and reads each span the same from its blocks', async () => {
    const expected = await fromDays()
    expect(expected[0]!.pages.length).toBeGreaterThan(5)
    expect(await rollUpStats(t.app.db, addDays(LAST, -20))).toBeGreaterThanOrEqual(1)
    expect(await blockCount()).toBeGreaterThan(0)
    expect(await allSpans()).toEqual(expected)
    // A later roll-up continues where the last one stopped; a second one the same day has nothing to do.
    expect(await rollUpStats(t.app.db, addDays(LAST, 1))).toBeGreaterThanOrEqual(1)
    expect(await rollUpStats(t.app.db, addDays(LAST, 1))).toBe(0)
    expect(await allSpans()).toEqual(expected)
    const rolled = await t.app.db
      .selectFrom('stats_rolled')
      .select(sql<string>`through::text`.as('through'))
      .where('site_id', '=', site.id)
      .execute()
    expect(rolled).toEqual([{ through: LAST }])
  })

  it('keeps each block the sum of its days when the retention cuts through it', async () => {
    // The free plan keeps 30 days: the cut falls inside blocks of every size above a few days.
    await purgeStats(t.app.db, addDays(LAST, 5))
    const firstKept = addDays(LAST, 5 - 30)
    const { rows } = await sql<{ ends: string }>`
      select min(start + (power(2, level)::int - 1))::text as ends from stats_item_blocks where site_id = ${site.id}`.execute(t.app.db)
    expect(rows[0]!.ends >= firstKept).toBe(true)
    expect(await allSpans()).toEqual(await fromDays())
    expect((await siteStats(t.app.db, site.id, FIRST, LAST)).totals.pageviews).toBe(10 * spanDays(firstKept, LAST))
  })

  it('goes with its site', async () => {
    await t.app.db.deleteFrom('sites').where('id', '=', site.id).execute()
    expect(await blockCount()).toBe(0)
  })
})
