import { enqueueJob, type JobDefinition, type NamedJob } from '../../../infra/jobs.ts'
import type { Db } from '../../../infra/db.ts'
import type { CruxClient } from './crux.ts'
import { lookupFieldData, nextDailyUpdate } from './field-data.ts'
import { reserveCruxQueries } from './limiter.ts'
import { saveSnapshot, writeCache } from './store.ts'

export const SNAPSHOT_JOB = 'cwv.snapshot'
/** Snapshots are taken a little after CrUX's daily update, so they hold the new day's data. */
const AFTER_UPDATE_MS = 30 * 60_000

export const utcDay = (date: Date) => date.toISOString().slice(0, 10)

/**
 * Schedules a snapshot of `domain`: `now` for the one a track request asks for, `daily` for the
 * one after each CrUX update. One pending job per domain, kind and day.
 */
export function scheduleSnapshot(db: Db, domain: string, at: Date, kind: 'now' | 'daily') {
  return enqueueJob(db, SNAPSHOT_JOB, { domain }, { runAt: at, uniqueKey: `${domain}:${kind}:${utcDay(at)}`, maxAttempts: 8 })
}

/** When the daily snapshot after `now` is due. */
export function nextSnapshotAt(now: Date): Date {
  return new Date(nextDailyUpdate(now).getTime() + AFTER_UPDATE_MS)
}

/**
 * The daily tracking job: stores today's CrUX lookup as a snapshot, refreshes the lookup cache,
 * and schedules itself for the next daily update.
 */
export function snapshotJob(db: Db, crux: CruxClient): NamedJob<{ domain: string }> {
  const definition: JobDefinition<{ domain: string }> = {
    maxAttempts: 8,
    // Retries back off from a minute to about an hour: CrUX quota and outages pass slowly.
    backoffMs: (attempt) => Math.min(3_600_000, 60_000 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2),
    handler: async ({ domain }, { log }) => {
      const now = new Date()
      // Tomorrow's job first: a day whose snapshot fails for good must not end the tracking.
      await scheduleSnapshot(db, domain, nextSnapshotAt(now), 'daily')
      await reserveCruxQueries(db, 2)
      const data = await lookupFieldData(crux, domain)
      await saveSnapshot(db, domain, utcDay(now), data)
      await writeCache(db, `lookup:${domain}`, { ...data, fetched_at: now.toISOString() }, nextDailyUpdate(now))
      log.info({ domain, status: data.status }, 'cwv snapshot stored')
    },
  }
  return { name: SNAPSHOT_JOB, definition }
}
