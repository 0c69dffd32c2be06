/**
 * How a delivery's first attempt is queued: by the fan-out for every endpoint of an event, and
 * directly for a test event or a replayed dead letter. Every attempt is a job of its own, keyed by
 * delivery and attempt number, so two workers never make the same attempt at once.
 */
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJobs, type NewJob } from '../../infra/jobs.ts'

export const DELIVER_JOB = 'webhook.deliver'

export interface DeliverPayload {
  delivery_id: string
  attempt: number
}

/**
 * The job of a delivery's first attempt. A fan-out's deliveries are due since their event
 * happened: jobs are claimed by due time, so a burst of events has the deliveries of its first
 * events sent while the later ones are still being fanned out, instead of after all of them.
 */
export const firstAttemptJob = (deliveryId: string, dueSince?: Date): NewJob => ({
  name: DELIVER_JOB,
  payload: { delivery_id: deliveryId, attempt: 1 } satisfies DeliverPayload,
  options: { uniqueKey: `${deliveryId}:1`, ...(dueSince ? { runAt: dueSince } : {}) },
})

/** Queues the first attempt of a new delivery of `eventId` to `endpointId`. */
export async function queueDelivery(db: Db, accountId: string, endpointId: string, eventId: string): Promise<string> {
  const id = newId('dlv')
  await db.insertInto('webhook_deliveries').values({ id, account_id: accountId, endpoint_id: endpointId, event_id: eventId }).execute()
  await enqueueJobs(db, [firstAttemptJob(id)])
  return id
}

/** The type of the event POST /v1/webhooks/{id}/test sends; it goes to that endpoint only. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** Stores a test event and queues its delivery to one endpoint, bypassing the fan-out. */
export async function queueTestDelivery(db: Db, accountId: string, endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = newId('evt')
  await db
    .insertInto('events')
    .values({
      id: eventId,
      account_id: accountId,
      site_id: null,
      type: TEST_EVENT_TYPE,
      data: JSON.stringify({ endpoint_id: endpointId, message: 'A test delivery from your webhook settings' }),
      personal_sealed: null,
    })
    .execute()
  return { eventId, deliveryId: await queueDelivery(db, accountId, endpointId, eventId) }
}
