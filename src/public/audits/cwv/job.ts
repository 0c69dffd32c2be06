import type { FastifyInstance } from 'fastify'
import { enqueueJob } from '../../../infra/jobs.ts'
import type { Db } from '../../../infra/db.ts'
import type { CruxClient } from './crux.ts'
import { lookupFieldData, nextDailyUpdate } from './field-data.ts'
import { reserveCruxQueries } from './limiter.ts'
import { saveSnapshot, writeCache } from './store.ts'

export const SNAPSHOT_JOB = 'cwv.snapshot'
/** Snapshots are taken a little after CrUX's daily update, so they hold the new day's data. */
const AFTER_UPDATE_MS = 30 * 60_000

export const utcDay = (date: Date) => date.toISOString().slice(0, 10)

/** Schedules the snapshot of `domain` for `at`; one pending job per domain and day. */
export function scheduleSnapshot(db: Db, domain: string, at: Date) {
  return enqueueJob(db, SNAPSHOT_JOB, { domain }, { runAt: at, uniqueKey: `${domain}:${utcDay(at)}`, maxAttempts: 8 })
}

/**
 * The daily tracking job: stores today's CrUX lookup as a snapshot, refreshes the lookup cache,
 * and schedules itself for the next daily update.
 */
export function defineSnapshotJob(app: FastifyInstance, crux: CruxClient) {
  app.jobs.define<{ domain: string }>(SNAPSHOT_JOB, {
    maxAttempts: 8,
    handler: async ({ domain }, { log }) => {
      await reserveCruxQueries(app.db, 2)
      const data = await lookupFieldData(crux, domain)
      const now = new Date()
      await saveSnapshot(app.db, domain, utcDay(now), data)
      const next = nextDailyUpdate(now)
      await writeCache(app.db, `lookup:${domain}`, { ...data, fetched_at: now.toISOString() }, next)
      await scheduleSnapshot(app.db, domain, new Date(next.getTime() + AFTER_UPDATE_MS))
      log.info({ domain, status: data.status }, 'cwv snapshot stored')
    },
  })
}
