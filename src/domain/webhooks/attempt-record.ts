/**
 * The writes of an attempt's outcome. Each is guarded by the attempt number (the delivery must
 * still wait for that attempt), so a late outcome from a worker that lost its lease changes
 * nothing. The common case, a success on a healthy endpoint, is one statement shared by the
 * attempts that finish together, which marks their jobs done too; any other outcome is one
 * transaction of its own with the endpoint's health and the next attempt's job.
 */
import { sql } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { FetchError, type FetchResult } from '../../infra/fetcher.ts'
import { enqueueJob, jobWrites, plannedEachTime, type ClaimedJob, type Job } from '../../infra/jobs.ts'
import type { AttemptInput } from './attempt-read.ts'
import type { Decision, Sent } from './outcome.ts'
import { DELIVER_JOB, type DeliverPayload } from './queue-delivery.ts'
import type { RetryClock } from './retry.ts'

/**
 * Additional data binding a sealed answer excerpt to its attempt. Receivers may echo the payload,
 * personal data included, so the excerpt is kept sealed like the event it answers.
 */
export const responseContext = (attemptId: string) => `webhook_attempts.response:${attemptId}`

/** A first or later attempt that the receiver accepted while its endpoint was healthy: nothing but the delivery and the attempt row to write. */
export interface PlainSuccess {
  /** The attempt's job as its claim holds it: the job is marked done by the same statement. */
  job: ClaimedJob
  delivery_id: string
  endpoint_id: string
  attempt: number
  first_attempt_at: string
  attempted_at: string
  delivered_at: string
  status: number
  duration_ms: number
  attempt_id: string
  response: string
}

/** A plain success as recordSuccesses writes it: the receiver's answer with its excerpt sealed, the job as its claim holds it. */
export function plainSuccess(keyring: Keyring, job: Job, input: AttemptInput, sent: Sent, answer: FetchResult): PlainSuccess {
  const { attempt, started, finished, firstAttemptAt } = sent
  const attemptId = newId('wha')
  return {
    job: { id: job.id, owner: job.lease_owner! },
    delivery_id: input.delivery.id,
    endpoint_id: input.endpoint.id,
    attempt,
    first_attempt_at: new Date(firstAttemptAt).toISOString(),
    attempted_at: new Date(started).toISOString(),
    delivered_at: new Date(finished).toISOString(),
    status: answer.status,
    duration_ms: Math.max(0, Math.round(finished - started)),
    attempt_id: attemptId,
    response: keyring.seal(answer.body.toString('utf8'), responseContext(attemptId)),
  }
}

/**
 * The statement of recordSuccesses. The ids are matched as an array
 * too: the planner cannot see into the JSON, and a join on it alone may scan every pending
 * delivery; `= any(array)` goes through the primary key.
 */
const successesWrite = plannedEachTime(
  (db, successes: string, jobs: readonly ClaimedJob[]) => sql<{ id: string }>`
    with v as (
      select * from jsonb_to_recordset(${successes}::jsonb) as v(delivery_id text, endpoint_id text, attempt int,
        first_attempt_at timestamptz, attempted_at timestamptz, delivered_at timestamptz, status int, duration_ms int, attempt_id text, response text)
    ), done as (${jobWrites.complete(jobs)}), recorded as (
      update webhook_deliveries as d
      set attempts = v.attempt, first_attempt_at = v.first_attempt_at, last_status = v.status, last_error = null, last_failure = null, state = 'succeeded', delivered_at = v.delivered_at
      from v
      where d.id = any(array(select delivery_id from v)) and d.id = v.delivery_id and d.state = 'pending' and d.attempts = v.attempt - 1
      returning d.id
    ), attempts as (
      insert into webhook_attempts (id, delivery_id, endpoint_id, attempt, attempted_at, status, duration_ms, response, error)
      select v.attempt_id, v.delivery_id, v.endpoint_id, v.attempt, v.attempted_at, v.status, v.duration_ms, v.response, null
      from v join recorded on recorded.id = v.delivery_id
    )
    select id from recorded`,
)

/**
 * Records plain successes in one statement: each delivery is updated only while it still waits
 * for that attempt (the guard), and the attempt row is written for exactly those updated; each
 * attempt's job is marked done too, fenced by its claim's owner token (JobContext.completed), as
 * the runner would mark it when the handler returns. Answers per success whether it was recorded.
 */
export async function recordSuccesses(db: Db, successes: readonly PlainSuccess[]): Promise<boolean[]> {
  const rows = await successesWrite(
    db,
    JSON.stringify(successes),
    successes.map((s) => s.job),
  )
  const recorded = new Set(rows.map((r) => r.id))
  return successes.map((s) => recorded.has(s.delivery_id))
}

/** Writes the attempt, the delivery's new state, the endpoint's and the next try in one transaction; false when another run got there first. */
export async function recordAttempt(
  deps: { db: Db; keyring: Keyring; clock: RetryClock },
  input: AttemptInput,
  sent: Sent,
  decision: Decision,
): Promise<boolean> {
  const { keyring, clock } = deps
  const { delivery, endpoint } = input
  const { attempt, started, finished, firstAttemptAt, result, outcome } = sent
  const { state, error, failure, retryAt } = decision
  return deps.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        first_attempt_at: new Date(firstAttemptAt),
        last_status: outcome.status,
        last_error: error,
        last_failure: failure,
        state,
        ...(state === 'succeeded' ? { delivered_at: new Date(finished) } : {}),
        ...(state === 'dead' ? { failed_at: new Date(finished) } : {}),
      })
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', attempt - 1)
      .executeTakeFirst()
    if (updated.numUpdatedRows === 0n) return false
    const attemptId = newId('wha')
    const excerpt = result instanceof FetchError ? null : keyring.seal(result.body.toString('utf8'), responseContext(attemptId))
    await trx
      .insertInto('webhook_attempts')
      .values({
        id: attemptId,
        delivery_id: delivery.id,
        endpoint_id: endpoint.id,
        attempt,
        attempted_at: new Date(started),
        status: outcome.status,
        duration_ms: Math.max(0, Math.round(finished - started)),
        response: excerpt,
        error: outcome.kind === 'delivered' ? null : outcome.error,
        failure: outcome.kind === 'delivered' ? null : outcome.failure,
      })
      .execute()
    await recordEndpointHealth(trx, endpoint, sent, decision)
    if (retryAt !== undefined) {
      // The job queue's clock is the wall clock: wait as long as the retry clock says.
      const delayMs = Math.max(0, retryAt - clock.now())
      await enqueueJob(trx, DELIVER_JOB, { delivery_id: delivery.id, attempt: attempt + 1 } satisfies DeliverPayload, {
        delayMs,
        uniqueKey: `${delivery.id}:${attempt + 1}`,
      })
    }
    return true
  })
}

/** The endpoint turned off (410 Gone, or failing for days), or the start or end of its failing spell noted. */
async function recordEndpointHealth(trx: Db, endpoint: AttemptInput['endpoint'], sent: Sent, decision: Decision): Promise<void> {
  const { outcome, finished } = sent
  const { failingSince, disableForFailing } = decision
  if (outcome.kind === 'gone' || disableForFailing) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: outcome.kind === 'gone' ? 'gone' : 'failing', updated_at: new Date(finished) })
      .where('id', '=', endpoint.id)
      .execute()
  } else if ((failingSince === undefined) !== (endpoint.failing_since === null)) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: failingSince === undefined ? null : new Date(failingSince) })
      .where('id', '=', endpoint.id)
      .execute()
  }
}
