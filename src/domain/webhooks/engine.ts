/**
 * The delivery engine (DESIGN.md 8): the fan-out and delivery jobs, defined on a runner. An event's
 * fan-out (fan-out.ts) makes one delivery per endpoint; each attempt of each delivery is one job
 * (attempt.ts), keyed by delivery and attempt number, so two workers never make the same attempt
 * at once; a worker that dies mid-attempt loses its lease and the attempt is made again. An
 * attempt's outcome, the next attempt's job and the endpoint's health are written together,
 * guarded by the attempt number (attempt-record.ts), so a late outcome from a worker that lost its
 * lease changes nothing. Jobs claimed together share their database work (batch.ts).
 */
import type { JobRunner } from '../../infra/jobs.ts'
import { batched } from '../../infra/jobs.ts'
import { attemptDelivery, type WebhookDeps } from './attempt.ts'
import { batchFor } from './batch.ts'
import { FANOUT_JOB } from './events.ts'
import { fanOutBatch } from './fan-out.ts'
import { DELIVER_JOB, type DeliverPayload } from './queue-delivery.ts'

/** How every delivery introduces itself to the receiver. */
export const WEBHOOK_USER_AGENT = 'WebPresence-Webhooks/1.1'

/** Defines the fan-out and delivery jobs on a runner (every instance runs them). */
export function defineWebhookJobs(jobs: JobRunner, deps: WebhookDeps): void {
  // Fan-outs that run together share one transaction, and hand the first attempts to this runner.
  const batch = batchFor(deps)
  const fanOut = batched((ids: string[]) => fanOutBatch(deps.db, ids, jobs, batch))
  jobs.define<{ event_id: string }>(FANOUT_JOB, {
    maxAttempts: 20,
    leaseMs: deps.clock.leaseMs,
    handler: async (payload, { releaseSlot }) => {
      // A fan-out is database writes only: it needs no slot that a request could use.
      releaseSlot()
      await fanOut(payload.event_id)
    },
  })
  jobs.define<DeliverPayload>(DELIVER_JOB, {
    maxAttempts: 10,
    leaseMs: deps.clock.leaseMs,
    handler: (payload, context) => attemptDelivery(deps, payload, context.signal, context.releaseSlot, context),
  })
}
