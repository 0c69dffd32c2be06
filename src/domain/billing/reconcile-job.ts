import { enqueueJob, type JobDefinition, type NamedJob } from '../../infra/jobs.ts'
import type { Billing } from './service.ts'

export const RECONCILE_JOB = 'billing.reconcile'
const EVERY_MS = 3600_000

/**
 * The hourly reconciliation (DESIGN.md 16): every billed account read back from Stripe, so an
 * event that never arrived is healed within the hour and a downgrade booked for a period's end
 * takes effect. One run per hour slot however many instances schedule it; each run schedules the next.
 */
export function reconcileJob(billing: Billing): NamedJob {
  const scheduleNext = () => {
    const runAt = new Date(Math.floor(Date.now() / EVERY_MS) * EVERY_MS + EVERY_MS)
    return enqueueJob(billing.deps.db, RECONCILE_JOB, {}, { runAt, uniqueKey: `slot:${runAt.toISOString()}` })
  }
  const definition: JobDefinition = {
    maxAttempts: 3,
    leaseMs: 60_000,
    handler: async (_payload, { log }) => {
      const result = await billing.reconcile()
      log.info(result, 'billing reconciled with Stripe')
      await scheduleNext()
    },
  }
  return { name: RECONCILE_JOB, definition, ...(billing.available ? { scheduleNext } : {}) }
}
