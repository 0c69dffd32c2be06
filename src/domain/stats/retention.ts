import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { scheduleDaily, type NamedJob } from '../../infra/jobs.ts'
import { planEntitlements } from '../accounts/entitlements.ts'
import { PLANS } from '../accounts/plans.ts'
import { rollUpStats, trimBlocks } from './blocks.ts'
import { dayOf } from './tally.ts'

export const STATS_PURGE_JOB = 'stats.purge'

/** A retention of the price list in words: "30 days", "13 months" (a month is 30.44 days on average). */
export function retentionText(days: number): string {
  const months = Math.round(days / 30.44)
  return days < 60 ? `${days} days` : `${months} months`
}

/**
 * Deletes the statistics each site's account no longer keeps (its plan's days in the price list,
 * counted back from `today`, the blocks of days included), the salts of days before `today` and the visitor hashes of days
 * before yesterday. Answers how many day rows went.
 */
export async function purgeStats(db: Db, today: string): Promise<number> {
  const keep = sql.join(
    PLANS.map((plan) => sql`when ${plan} then ${sql.lit(planEntitlements(plan).statsRetentionDays)}`),
    sql` `,
  )
  // A site without an account (none is made so today) keeps the shortest retention.
  const kept = (table: string) =>
    sql`coalesce((select case accounts.plan ${keep} end from sites join accounts on accounts.id = sites.account_id
      where sites.id = ${sql.ref(`${table}.site_id`)}), ${sql.lit(planEntitlements('free').statsRetentionDays)})`
  const firstKept = (table: string) => sql`${today}::date - ${kept(table)}`
  const days = await sql`delete from stats_days where day < ${firstKept('stats_days')}`.execute(db)
  await sql`delete from stats_items where day < ${firstKept('stats_items')}`.execute(db)
  await trimBlocks(db, firstKept)
  await db.deleteFrom('stats_salts').where('day', '<', today).execute()
  await sql`delete from stats_seen where day < ${today}::date - 1`.execute(db)
  return Number(days.numAffectedRows ?? 0)
}

/** The next run at 03:30 UTC; one pending run per day, whatever the number of instances. */
function schedulePurge(db: Db, from = new Date()) {
  return scheduleDaily(db, STATS_PURGE_JOB, { hour: 3, minute: 30 }, from)
}

/** The daily purge of statistics past their plan's retention, then the roll-up of the days that are over into blocks. */
export function statsPurgeJob(db: Db): NamedJob {
  return {
    name: STATS_PURGE_JOB,
    definition: {
      handler: async (_payload, { log }) => {
        await schedulePurge(db)
        const today = dayOf(Date.now())
        const erased = await purgeStats(db, today)
        const sites = await rollUpStats(db, today)
        log.info({ erased, sites }, 'visitor statistics past their retention erased, the days that are over rolled up')
      },
    },
    scheduleNext: () => schedulePurge(db),
  }
}
