import type { FastifyInstance } from 'fastify'
import { purgeAuditLog } from '../domain/audit-log.ts'
import { purgeQuotaWindows } from '../domain/quota.ts'
import { enqueueJob } from '../infra/jobs.ts'
import { purgeIdempotencyKeys } from './idempotency-store.ts'

export const REST_PURGE_JOB = 'rest.purge'

/** One run a day at 04:00 UTC, keyed by its day so N instances schedule it once. */
function scheduleNext(app: FastifyInstance, from = new Date()) {
  const at = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), 4))
  if (at <= from) at.setUTCDate(at.getUTCDate() + 1)
  return enqueueJob(app.db, REST_PURGE_JOB, {}, { runAt: at, uniqueKey: at.toISOString().slice(0, 10), maxAttempts: 5 })
}

/** What /v1 keeps only for a while: audit records (90 days), Idempotency-Keys (a day), ended quota windows. */
export async function purgeRestData(app: FastifyInstance, now = Date.now()): Promise<Record<string, number>> {
  return {
    audit_log: await purgeAuditLog(app.db, now),
    idempotency_keys: await purgeIdempotencyKeys(app.db, now),
    api_quota: await purgeQuotaWindows(app.db, now),
  }
}

export function defineRestPurge(app: FastifyInstance): void {
  app.jobs.define(REST_PURGE_JOB, {
    handler: async (_payload, { log }) => {
      // Tomorrow's run first, so a failing purge still leaves the next one in place.
      await scheduleNext(app)
      log.info({ counts: await purgeRestData(app) }, 'REST API records purged')
    },
  })
  app.addHook('onReady', async () => {
    await scheduleNext(app).catch((error: unknown) => app.log.warn({ err: error }, 'could not schedule the REST API purge'))
  })
}
