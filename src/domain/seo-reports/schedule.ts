import { createHash } from 'node:crypto'

/**
 * When scheduled SEO reports run (DESIGN.md 12): each plan's cadence has periods (a week from
 * Monday 00:00 UTC, or a calendar month), and each site has its own moment in every period, the
 * same share of the period each time, taken from a hash of its id. So the audits of many sites
 * spread over the period instead of all starting at midnight, and a site's report comes on about
 * the same day each time. No moment lies in a period's last hour, so the hourly scheduling pass
 * always finds it within its own period.
 */

export type Cadence = 'weekly' | 'monthly'

export interface Period {
  cadence: Cadence
  /** "2026-W48" or "2026-11": at most one scheduled report per site and key. */
  key: string
  start: Date
  end: Date
}

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** The ISO week (Monday first) or the calendar month, in UTC, that `at` falls in. */
export function periodOf(cadence: Cadence, at: Date): Period {
  if (cadence === 'monthly') {
    const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1))
    const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
    return { cadence, key: start.toISOString().slice(0, 7), start, end }
  }
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())
  const start = new Date(midnight - ((at.getUTCDay() + 6) % 7) * DAY_MS)
  // The ISO week-numbering year is the year of the week's Thursday.
  const thursday = new Date(start.getTime() + 3 * DAY_MS)
  const firstThursdayWeekStart = (() => {
    const jan4 = new Date(Date.UTC(thursday.getUTCFullYear(), 0, 4))
    return jan4.getTime() - ((jan4.getUTCDay() + 6) % 7) * DAY_MS
  })()
  const week = 1 + Math.round((start.getTime() - firstThursdayWeekStart) / (7 * DAY_MS))
  return {
    cadence,
    key: `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`,
    start,
    end: new Date(start.getTime() + 7 * DAY_MS),
  }
}

/** The site's share of any period, in [0, 1): the same for every period. */
export function siteShare(siteId: string): number {
  return createHash('sha256').update(siteId).digest().readUIntBE(0, 6) / 2 ** 48
}

/** The moment of the site's report in the period. */
export function slotOf(siteId: string, period: Period): Date {
  const usable = period.end.getTime() - period.start.getTime() - HOUR_MS
  return new Date(period.start.getTime() + Math.floor(siteShare(siteId) * usable))
}
