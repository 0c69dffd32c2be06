/**
 * The fan-out of an event: one delivery per endpoint of its account that takes its type, each
 * with its first attempt's job. Fan-outs that run together share two statements, one read and
 * one write, so a burst of events costs a few round trips; and the first attempts their runner has
 * room for go in already claimed by it, starting as soon as the write commits.
 */
import { sql } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { WebhookFailure } from '../../infra/tables.ts'
import { jobWrites, NO_CLAIM, plannedEachTime, type ClaimToken, type Job, type JobRunner, type NewJob } from '../../infra/jobs.ts'
import type { AttemptInput } from './attempt-read.ts'
import type { Batch } from './batch.ts'
import { HELD_DISABLED, HELD_FOR_PLAN, webhooksAllowed } from './endpoints.ts'
import { DELIVER_JOB, firstAttemptJob, type DeliverPayload } from './queue-delivery.ts'

/**
 * One delivery per endpoint of the event's account that takes its type. A disabled endpoint gets
 * its delivery as a dead letter at once, so the event can be replayed once it is enabled again;
 * so does every endpoint of an account whose plan no longer has webhooks (HELD_FOR_PLAN),
 * replayable after an upgrade. Safe to run twice for one event (a fan-out whose worker died): the
 * second run finds the deliveries and stops.
 */
export async function fanOut(db: Db, eventId: string): Promise<number> {
  const [count] = await fanOutEvents(db, [eventId])
  return count ?? 0
}

/**
 * fanOut for several events in two statements: one read of the events with their accounts' plans
 * and matching endpoints, one write of the deliveries with their jobs. Answers the number of
 * endpoints per event, in order.
 */
export async function fanOutEvents(db: Db, eventIds: readonly string[]): Promise<number[]> {
  return fanOutBatch(db, eventIds)
}

/**
 * The read of a fan-out: the events with their accounts' plans and matching endpoints, and
 * whether they were fanned out already; one text whatever the number of events.
 */
const fanOutRead = plannedEachTime((db, ids: string[]) =>
  db
    .selectFrom('events as e')
    .innerJoin('accounts as a', 'a.id', 'e.account_id')
    .leftJoin('webhook_endpoints as w', (join) =>
      join
        .onRef('w.account_id', '=', 'e.account_id')
        .on(sql<boolean>`(w.event_types = '[]'::jsonb or w.event_types @> jsonb_build_array(e.type))`),
    )
    .select([
      'e.id',
      'e.account_id',
      'e.created_at',
      'e.site_id',
      'e.type',
      'e.data',
      'e.personal_sealed',
      'a.plan',
      'w.id as endpoint_id',
      'w.enabled',
      'w.url',
      'w.secret_sealed',
      'w.previous_secret_sealed',
      'w.previous_expires_at',
      'w.failing_since',
      sql<boolean>`exists (select 1 from webhook_deliveries x where x.event_id = e.id)`.as('done'),
    ])
    .where('e.id', '=', sql<string>`any(${ids}::text[])`),
)

type FanOutRow = Awaited<ReturnType<typeof fanOutRead>>[number]

/** A delivery as the fan-out writes it: pending with its first attempt queued, or a dead letter at once. */
interface NewDelivery {
  id: string
  account_id: string
  endpoint_id: string
  event_id: string
  state: 'pending' | 'dead'
  last_error: string | null
  last_failure: WebhookFailure | null
  failed_at: Date | null
}

/**
 * The write of a fan-out, one statement: the deliveries, the first attempts the runner takes
 * (claimed by it) and the others (queued). Returns the claimed jobs.
 */
const fanOutWrite = plannedEachTime(
  (db, deliveries: readonly NewDelivery[], claimed: readonly NewJob[], claim: ClaimToken, queued: readonly NewJob[]) => sql<Job>`
  with d as (
    insert into webhook_deliveries (id, account_id, endpoint_id, event_id, state, last_error, last_failure, failed_at)
    select id, account_id, endpoint_id, event_id, state, last_error, last_failure, failed_at
    from jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb)
      as v(id text, account_id text, endpoint_id text, event_id text, state text, last_error text, last_failure text, failed_at timestamptz)
  ), queued as (${jobWrites.enqueue(queued)}), claimed as (${jobWrites.enqueueClaimed(claimed, claim)})
  select * from claimed`,
)

/** What the first attempt of a new delivery would read, taken from the fan-out's own read. */
const firstAttemptInput = (row: FanOutRow, deliveryId: string): AttemptInput => ({
  delivery: { id: deliveryId, state: 'pending', attempts: 0, first_attempt_at: null },
  endpoint: {
    id: row.endpoint_id!,
    account_id: row.account_id,
    url: row.url!,
    enabled: row.enabled!,
    secret_sealed: row.secret_sealed!,
    previous_secret_sealed: row.previous_secret_sealed,
    previous_expires_at: row.previous_expires_at,
    failing_since: row.failing_since,
    plan: row.plan,
  },
  event: {
    id: row.id,
    account_id: row.account_id,
    site_id: row.site_id,
    type: row.type,
    data: row.data,
    personal_sealed: row.personal_sealed,
    created_at: row.created_at,
  },
})

/**
 * The fan-out of several events. Given the runner that runs it, the first attempts it has room
 * for go in already claimed by it (JobRunner.reserve) and start as soon as the transaction
 * commits: no claim of their own, no NOTIFY, and no queued row turned running a moment later;
 * given its batch, they start with what this read for them.
 */
export async function fanOutBatch(
  db: Db,
  eventIds: readonly string[],
  runner?: JobRunner,
  batch?: Pick<Batch, 'prime'>,
): Promise<number[]> {
  const rows = await fanOutRead(db, [...new Set(eventIds)])
  const counts = new Map<string, number>()
  const deliveries: NewDelivery[] = []
  const jobs: NewJob[] = []
  const inputs = new Map<string, AttemptInput>()
  const now = new Date()
  for (const row of rows) {
    if (row.done || row.endpoint_id === null) continue
    counts.set(row.id, (counts.get(row.id) ?? 0) + 1)
    const delivery = { id: newId('dlv'), account_id: row.account_id, endpoint_id: row.endpoint_id, event_id: row.id }
    if (row.enabled && webhooksAllowed(row.plan)) {
      deliveries.push({ ...delivery, state: 'pending', last_error: null, last_failure: null, failed_at: null })
      jobs.push(firstAttemptJob(delivery.id, row.created_at))
      if (batch) inputs.set(delivery.id, firstAttemptInput(row, delivery.id))
    } else {
      deliveries.push({ ...delivery, state: 'dead', ...(row.enabled ? HELD_FOR_PLAN : HELD_DISABLED), failed_at: now })
    }
  }
  if (deliveries.length > 0) {
    const claim = runner?.reserve(jobs.length, DELIVER_JOB) ?? NO_CLAIM
    // One statement writes the deliveries and their jobs: it commits whole or not at all.
    const claimed = await fanOutWrite(db, deliveries, jobs.slice(0, claim.room), claim, jobs.slice(claim.room))
    if (runner && claimed.length > 0) {
      batch?.prime(claimed.flatMap((job) => inputs.get((job.payload as DeliverPayload).delivery_id) ?? []))
      runner.adopt(claimed, claim)
    }
  }
  return eventIds.map((id, i) => (eventIds.indexOf(id) === i ? (counts.get(id) ?? 0) : 0))
}
