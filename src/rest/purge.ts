import type { FastifyInstance } from 'fastify'
import { purgeAuditLog } from '../domain/accounts/audit-log.ts'
import { purgeQuotaWindows } from '../domain/accounts/quota.ts'
import { scheduleDaily, type JobDefinition, type NamedJob } from '../infra/jobs.ts'
import { purgeIdempotencyKeys } from './idempotency-store.ts'

export const REST_PURGE_JOB = 'rest.purge'

/** One run a day at 04:00 UTC. */
const scheduleNext = (app: FastifyInstance) => scheduleDaily(app.db, REST_PURGE_JOB, { hour: 4 })

/** What /v1 keeps only for a while: audit records (90 days), Idempotency-Keys (a day), ended quota windows. */
export async function purgeRestData(app: FastifyInstance, now = Date.now()): Promise<Record<string, number>> {
  return {
    audit_log: await purgeAuditLog(app.db, now),
    idempotency_keys: await purgeIdempotencyKeys(app.db, now),
    api_quota: await purgeQuotaWindows(app.db, now),
  }
}

/** The daily purge of what /v1 keeps only for a while. */
export function restPurgeJob(app: FastifyInstance): NamedJob {
  const definition: JobDefinition = {
    handler: async (_payload, { log }) => {
      // Tomorrow's run first, so a failing purge still leaves the next one in place.
      await scheduleNext(app)
      log.info({ counts: await purgeRestData(app) }, 'REST API records purged')
    },
  }
  return { name: REST_PURGE_JOB, definition, scheduleNext: () => scheduleNext(app) }
}
