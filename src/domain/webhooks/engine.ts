import { sql, type Selectable } from 'kysely'
import { translator } from '../i18n/translator.ts'
import { isLocale } from '../locales.ts'
import type { Logger } from 'pino'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { FetchError, type FetchResult, type SafeFetcher } from '../../infra/fetcher.ts'
import {
  batched,
  enqueueJob,
  enqueueJobs,
  jobRows,
  jobsInsert,
  plannedEachTime,
  SUCCEEDED_JOB,
  type Job,
  type JobContext,
  type JobRunner,
  type NewJob,
} from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import type { EventsTable } from '../../infra/tables.ts'
import { nextAttemptAt, parseRetryAfter, type RetryClock } from './retry.ts'
import { webhookHeaders } from './signature.ts'
import { eventBody, FANOUT_JOB, openEvent } from './events.ts'
import type { Plan } from '../accounts/plans.ts'
import { PLAN_REQUIRED_ERROR, signingSecrets, webhooksAllowed, type EndpointRow } from './endpoints.ts'

/** How every delivery introduces itself to the receiver. */
export const WEBHOOK_USER_AGENT = 'WebPresence-Webhooks/1.1'

/**
 * The delivery engine (DESIGN.md 8). Each attempt of each delivery is one job, keyed by delivery
 * and attempt number, so two workers never make the same attempt at once; a worker that dies
 * mid-attempt loses its lease and the attempt is made again. An attempt's outcome, the next
 * attempt's job and the endpoint's health are written in one transaction, guarded by the attempt
 * number, so a late outcome from a worker that lost its lease changes nothing.
 *
 * Jobs claimed together share their database work: one read and one write for the fan-outs that
 * run together, one read for the attempts that start together, one statement for the plain
 * successes that finish together (each still guarded by its own attempt number, and marking its
 * job done under its lease), so a burst costs a few round trips instead of a few per delivery.
 * A fan-out hands the first attempts its runner has room for to that runner already claimed,
 * with what it read for them: they start without a claim or a read of their own.
 */

export const DELIVER_JOB = 'webhook.deliver'

/** The first kilobyte of a receiver's answer is kept with each attempt. */
const RESPONSE_EXCERPT_BYTES = 1024

/**
 * Additional data binding a sealed answer excerpt to its attempt. Receivers may echo the payload,
 * personal data included, so the excerpt is kept sealed like the event it answers.
 */
export const responseContext = (attemptId: string) => `webhook_attempts.response:${attemptId}`

export interface WebhookDeps {
  db: Db
  keyring: Keyring
  fetcher: SafeFetcher
  mailer: Mailer
  log: Logger
  clock: RetryClock
  userAgent?: string
}

export interface DeliverPayload {
  delivery_id: string
  attempt: number
}

/**
 * The job of a delivery's first attempt. A fan-out's deliveries are due since their event
 * happened: jobs are claimed by due time, so a burst of events has the deliveries of its first
 * events sent while the later ones are still being fanned out, instead of after all of them.
 */
const firstAttemptJob = (deliveryId: string, dueSince?: Date): NewJob => ({
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

/**
 * One delivery per endpoint of the event's account that takes its type. A disabled endpoint gets
 * its delivery as a dead letter at once, so the event can be replayed once it is enabled again;
 * so does every endpoint of an account whose plan no longer has webhooks (PLAN_REQUIRED_ERROR),
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

/**
 * What a fan-out read about the first attempts it handed to its own runner: the attempt's read,
 * as of the fan-out's transaction a moment before, taken once by the attempt instead of reading
 * it again. An entry not taken within MAX_PRIMED_AGE_MS (its job went back to the queue) is
 * dropped, and that attempt reads for itself.
 */
type Primed = Map<string, { input: AttemptInput; at: number }>
const MAX_PRIMED_AGE_MS = 1000

function takePrimed(primed: Primed, deliveryId: string): AttemptInput | undefined {
  const entry = primed.get(deliveryId)
  if (!entry) return undefined
  primed.delete(deliveryId)
  return performance.now() - entry.at <= MAX_PRIMED_AGE_MS ? entry.input : undefined
}

function prime(primed: Primed, inputs: readonly AttemptInput[]): void {
  const now = performance.now()
  // Entries are added in time order: the stale ones are at the front.
  for (const [id, entry] of primed) {
    if (now - entry.at <= MAX_PRIMED_AGE_MS) break
    primed.delete(id)
  }
  for (const input of inputs) primed.set(input.delivery.id, { input, at: now })
}

/**
 * The write of a fan-out, one statement of one text: the deliveries, the first
 * attempts the runner takes (claimed by it) and the others (queued). Returns the claimed jobs.
 */
const fanOutWrite = plannedEachTime(
  (db, deliveries: string, claimedJobs: string, owner: string, leaseSeconds: number, queuedJobs: string) => sql<Job>`
  with d as (
    insert into webhook_deliveries (id, account_id, endpoint_id, event_id, state, last_error, failed_at)
    select id, account_id, endpoint_id, event_id, state, last_error, failed_at
    from jsonb_to_recordset(${deliveries}::jsonb) as v(id text, account_id text, endpoint_id text, event_id text, state text, last_error text, failed_at timestamptz)
  ), queued as (${jobsInsert(queuedJobs)}), claimed as (${jobsInsert(claimedJobs, { owner, leaseSeconds })})
  select * from claimed`,
)

/**
 * The fan-out of several events. Given the runner that runs it, the first attempts it has room
 * for go in already claimed by it (JobRunner.reserve) and start as soon as the transaction
 * commits: no claim of their own, no NOTIFY, and no queued row turned running a moment later.
 */
async function fanOutBatch(db: Db, eventIds: readonly string[], runner?: JobRunner, primed?: Primed): Promise<number[]> {
  const ids = [...new Set(eventIds)]
  const rows = await fanOutRead(db, ids)
  const counts = new Map<string, number>()
  const deliveries: Array<{
    id: string
    account_id: string
    endpoint_id: string
    event_id: string
    state: 'pending' | 'dead'
    last_error: string | null
    failed_at: Date | null
  }> = []
  const jobs: NewJob[] = []
  const inputs = new Map<string, AttemptInput>()
  const now = new Date()
  for (const row of rows) {
    if (row.done || row.endpoint_id === null) continue
    counts.set(row.id, (counts.get(row.id) ?? 0) + 1)
    const delivery = { id: newId('dlv'), account_id: row.account_id, endpoint_id: row.endpoint_id, event_id: row.id }
    const allowed = webhooksAllowed(row.plan)
    if (row.enabled && allowed) {
      deliveries.push({ ...delivery, state: 'pending', last_error: null, failed_at: null })
      jobs.push(firstAttemptJob(delivery.id, row.created_at))
      if (primed) {
        inputs.set(delivery.id, {
          delivery: { id: delivery.id, state: 'pending', attempts: 0, first_attempt_at: null },
          endpoint: {
            id: row.endpoint_id,
            account_id: row.account_id,
            url: row.url!,
            enabled: row.enabled,
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
      }
    } else {
      deliveries.push({ ...delivery, state: 'dead', last_error: row.enabled ? PLAN_REQUIRED_ERROR : 'endpoint disabled', failed_at: now })
    }
  }
  if (deliveries.length > 0) {
    const token = runner?.reserve(jobs.length, DELIVER_JOB)
    const room = token?.room ?? 0
    // One statement writes the deliveries and their jobs: it commits whole or not at all.
    const claimed = await fanOutWrite(
      db,
      JSON.stringify(deliveries),
      jobRows(jobs.slice(0, room)),
      token?.owner ?? '',
      (token?.leaseMs ?? 0) / 1000,
      jobRows(jobs.slice(room)),
    )
    if (token && claimed.length > 0) {
      if (primed)
        prime(
          primed,
          claimed.flatMap((job) => inputs.get((job.payload as DeliverPayload).delivery_id) ?? []),
        )
      runner!.adopt(claimed, token)
    }
  }
  return eventIds.map((id, i) => (eventIds.indexOf(id) === i ? (counts.get(id) ?? 0) : 0))
}

type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; retryAfterMs?: number | undefined }
  | { kind: 'dead'; status: number | null; error: string }
  | { kind: 'gone'; status: 410; error: string }

function classify(result: FetchResult | FetchError, now: number): Outcome {
  if (result instanceof FetchError) {
    // Timeouts and network failures are the receiver's passing trouble; a refused address or URL is not.
    const transient =
      result.code === 'timeout' || result.code === 'connection_failed' || result.code === 'dns_failed' || result.code === 'invalid_response'
    const error = result.code === 'too_many_redirects' ? 'redirects are not followed' : result.message
    return transient ? { kind: 'retry', status: null, error } : { kind: 'dead', status: null, error }
  }
  const { status } = result
  if (status >= 200 && status < 300) return { kind: 'delivered', status }
  if (status === 410) return { kind: 'gone', status, error: 'the endpoint answered 410 Gone' }
  if (status >= 500 || status === 429) {
    return {
      kind: 'retry',
      status,
      error: `the endpoint answered ${status}`,
      retryAfterMs: parseRetryAfter(result.headers['retry-after'], now),
    }
  }
  return { kind: 'dead', status, error: `the endpoint answered ${status}` }
}

async function send(
  deps: WebhookDeps,
  endpoint: AttemptEndpoint,
  eventId: string,
  body: string,
  signal: AbortSignal,
): Promise<FetchResult | FetchError> {
  const now = deps.clock.now()
  const headers = webhookHeaders(signingSecrets(deps.keyring, endpoint, new Date(now)), eventId, Math.floor(now / 1000), body)
  try {
    return await deps.fetcher.fetch(endpoint.url, {
      method: 'POST',
      body,
      headers: { ...headers, 'content-type': 'application/json', accept: '*/*', 'accept-encoding': 'identity' },
      timeoutMs: deps.clock.timeoutMs,
      maxRedirects: 0,
      maxBytes: RESPONSE_EXCERPT_BYTES,
      truncate: true,
      signal,
    })
  } catch (error) {
    if (error instanceof FetchError) return error
    throw error
  }
}

/** The columns of an endpoint an attempt uses, with its account's plan. */
type AttemptEndpoint = Pick<
  EndpointRow,
  'id' | 'account_id' | 'url' | 'enabled' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_expires_at' | 'failing_since'
> & { plan: Plan }

/** What an attempt reads before it sends: the delivery, its endpoint and its event. */
interface AttemptInput {
  delivery: { id: string; state: string; attempts: number; first_attempt_at: Date | null }
  endpoint: AttemptEndpoint
  event: Selectable<EventsTable>
}

/** The deliveries of attempts that start together, read with their endpoints and events in one query. */
const attemptsRead = plannedEachTime((db, ids: string[]) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('accounts as a', 'a.id', 'w.account_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.state',
      'd.attempts',
      'd.first_attempt_at',
      'w.id as endpoint_id',
      'w.account_id as endpoint_account_id',
      'w.url',
      'w.enabled',
      'w.secret_sealed',
      'w.previous_secret_sealed',
      'w.previous_expires_at',
      'w.failing_since',
      'a.plan',
      'e.id as event_id',
      'e.account_id as event_account_id',
      'e.site_id',
      'e.type',
      'e.data',
      'e.personal_sealed',
      'e.created_at',
    ])
    .where('d.id', '=', sql<string>`any(${ids}::text[])`),
)

async function readAttempts(db: Db, deliveryIds: readonly string[]): Promise<Array<AttemptInput | undefined>> {
  const rows = await attemptsRead(db, [...new Set(deliveryIds)])
  const byId = new Map(
    rows.map((r): [string, AttemptInput] => [
      r.id,
      {
        delivery: { id: r.id, state: r.state, attempts: r.attempts, first_attempt_at: r.first_attempt_at },
        endpoint: {
          id: r.endpoint_id,
          account_id: r.endpoint_account_id,
          url: r.url,
          enabled: r.enabled,
          secret_sealed: r.secret_sealed,
          previous_secret_sealed: r.previous_secret_sealed,
          previous_expires_at: r.previous_expires_at,
          failing_since: r.failing_since,
          plan: r.plan,
        },
        event: {
          id: r.event_id,
          account_id: r.event_account_id,
          site_id: r.site_id,
          type: r.type,
          data: r.data,
          personal_sealed: r.personal_sealed,
          created_at: r.created_at,
        },
      },
    ]),
  )
  return deliveryIds.map((id) => byId.get(id))
}

/** A first or later attempt that the receiver accepted while its endpoint was healthy: nothing but the delivery and the attempt row to write. */
interface PlainSuccess {
  /** The attempt's job and its claim's owner token: the job is marked done by the same statement. */
  job_id: string
  job_owner: string
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

/**
 * The statement of recordSuccesses. The ids are matched as an array
 * too: the planner cannot see into the JSON, and a join on it alone may scan every pending
 * delivery; `= any(array)` goes through the primary key.
 */
const successesWrite = plannedEachTime(
  (db, successes: string) => sql<{ id: string }>`
    with v as (
      select * from jsonb_to_recordset(${successes}::jsonb) as v(job_id text, job_owner text, delivery_id text, endpoint_id text, attempt int,
        first_attempt_at timestamptz, attempted_at timestamptz, delivered_at timestamptz, status int, duration_ms int, attempt_id text, response text)
    ), done as (
      update jobs as j set ${sql.raw(SUCCEEDED_JOB)}
      from v
      where j.id = any(array(select job_id from v)) and j.id = v.job_id and j.lease_owner = v.job_owner
      returning j.id
    ), recorded as (
      update webhook_deliveries as d
      set attempts = v.attempt, first_attempt_at = v.first_attempt_at, last_status = v.status, last_error = null, state = 'succeeded', delivered_at = v.delivered_at
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
async function recordSuccesses(db: Db, successes: readonly PlainSuccess[]): Promise<boolean[]> {
  const rows = await successesWrite(db, JSON.stringify(successes))
  const recorded = new Set(rows.map((r) => r.id))
  return successes.map((s) => recorded.has(s.delivery_id))
}

/** The batched database work of one set of webhook jobs, shared by the jobs running at once. */
interface Engine {
  read: (deliveryId: string) => Promise<AttemptInput | undefined>
  recordSuccess: (success: PlainSuccess) => Promise<boolean>
  /** First attempts' reads made by the fan-out that handed them to this runner. */
  primed: Primed
}

const engines = new WeakMap<WebhookDeps, Engine>()

function engineFor(deps: WebhookDeps): Engine {
  let engine = engines.get(deps)
  if (!engine) {
    const { db } = deps
    engine = {
      read: batched((ids: string[]) => readAttempts(db, ids), { maxInFlight: 2 }),
      recordSuccess: batched((successes: PlainSuccess[]) => recordSuccesses(db, successes), { maxInFlight: 2 }),
      primed: new Map(),
    }
    engines.set(deps, engine)
  }
  return engine
}

/** A delivery queued before the endpoint was turned off, or before a downgrade, is held back the way the fan-out holds back new ones. */
async function holdBack(deps: WebhookDeps, input: AttemptInput, attempt: number): Promise<boolean> {
  const { delivery, endpoint } = input
  const reason = !endpoint.enabled ? 'endpoint disabled' : !webhooksAllowed(endpoint.plan) ? PLAN_REQUIRED_ERROR : undefined
  if (!reason) return false
  await deps.db
    .updateTable('webhook_deliveries')
    .set({ state: 'dead', last_error: reason, failed_at: new Date(deps.clock.now()) })
    .where('id', '=', delivery.id)
    .where('state', '=', 'pending')
    .where('attempts', '=', attempt - 1)
    .execute()
  return true
}

/** One request made: when it started and ended, what came back, and what that means. */
interface Sent {
  attempt: number
  started: number
  finished: number
  firstAttemptAt: number
  result: FetchResult | FetchError
  outcome: Outcome
}

/** What a failed or unusual attempt changes: the delivery's state and error, the endpoint's failing spell, the next try. */
interface Decision {
  state: 'succeeded' | 'pending' | 'dead'
  error: string | null
  failingSince: number | undefined
  disableForFailing: boolean
  retryAt: number | undefined
}

function decide(clock: RetryClock, endpoint: AttemptEndpoint, sent: Sent): Decision {
  const { outcome, started, finished, firstAttemptAt, attempt } = sent
  const failingSince = outcome.kind === 'delivered' ? undefined : (endpoint.failing_since?.getTime() ?? started)
  const disableForFailing =
    (outcome.kind === 'retry' || outcome.kind === 'dead') && failingSince !== undefined && finished - failingSince >= clock.disableAfterMs
  const retryAt =
    outcome.kind === 'retry' && !disableForFailing ? nextAttemptAt(clock, firstAttemptAt, attempt, outcome.retryAfterMs) : undefined

  let state: Decision['state'] = 'dead'
  let error: string | null = outcome.kind === 'delivered' ? null : outcome.error
  if (outcome.kind === 'delivered') state = 'succeeded'
  else if (retryAt !== undefined) state = 'pending'
  else if (disableForFailing) error = `${error}; the endpoint was disabled after failing every attempt for ${failingDays(clock)} days`
  else if (outcome.kind === 'retry') error = `${error}; retries exhausted`
  return { state, error, failingSince, disableForFailing, retryAt }
}

/** Writes the attempt, the delivery's new state, the endpoint's and the next try in one transaction; false when another run got there first. */
async function recordAttempt(deps: WebhookDeps, input: AttemptInput, sent: Sent, decision: Decision): Promise<boolean> {
  const { keyring, clock } = deps
  const { delivery, endpoint } = input
  const { attempt, started, finished, firstAttemptAt, result, outcome } = sent
  const { state, error, failingSince, disableForFailing, retryAt } = decision
  return deps.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt,
        first_attempt_at: new Date(firstAttemptAt),
        last_status: outcome.status,
        last_error: error,
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
      })
      .execute()
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

/**
 * Makes attempt number `attempt` of a delivery, if it is still the one due. `releaseSlot` is
 * called once the request is answered: only writing the outcome remains, so another job may
 * start its request meanwhile.
 */
export async function attemptDelivery(
  deps: WebhookDeps,
  payload: DeliverPayload,
  signal: AbortSignal,
  releaseSlot?: () => void,
  job?: Pick<JobContext, 'job' | 'completed'>,
): Promise<void> {
  const { keyring, clock } = deps
  const engine = engineFor(deps)
  const input =
    (payload.attempt === 1 ? takePrimed(engine.primed, payload.delivery_id) : undefined) ?? (await engine.read(payload.delivery_id))
  if (!input || input.delivery.state !== 'pending' || input.delivery.attempts !== payload.attempt - 1) return
  if (await holdBack(deps, input, payload.attempt)) return
  const { delivery, endpoint } = input
  const event = openEvent(keyring, input.event)

  const started = clock.now()
  const result = await send(deps, endpoint, event.id, eventBody(event), signal)
  const finished = clock.now()
  releaseSlot?.()
  const outcome = classify(result, finished)
  const firstAttemptAt = delivery.first_attempt_at?.getTime() ?? started

  if (job && outcome.kind === 'delivered' && endpoint.failing_since === null && !(result instanceof FetchError)) {
    // The common case: nothing changes but the delivery and its attempt row.
    const attemptId = newId('wha')
    await engine.recordSuccess({
      job_id: job.job.id,
      job_owner: job.job.lease_owner!,
      delivery_id: delivery.id,
      endpoint_id: endpoint.id,
      attempt: payload.attempt,
      first_attempt_at: new Date(firstAttemptAt).toISOString(),
      attempted_at: new Date(started).toISOString(),
      delivered_at: new Date(finished).toISOString(),
      status: outcome.status,
      duration_ms: Math.max(0, Math.round(finished - started)),
      attempt_id: attemptId,
      response: keyring.seal(result.body.toString('utf8'), responseContext(attemptId)),
    })
    job.completed()
    return
  }

  const sent: Sent = { attempt: payload.attempt, started, finished, firstAttemptAt, result, outcome }
  const decision = decide(clock, endpoint, sent)
  const recorded = await recordAttempt(deps, input, sent, decision)
  if (recorded && decision.disableForFailing) await mailDisabled(deps, endpoint)
}

const failingDays = (clock: RetryClock) => Math.round(clock.disableAfterMs / 86_400_000)

/** Tells the account's owners (who manage webhooks) that an endpoint was turned off after failing for days. */
async function mailDisabled(deps: WebhookDeps, endpoint: Pick<EndpointRow, 'id' | 'account_id' | 'url'>): Promise<void> {
  const users = await deps.db
    .selectFrom('account_members')
    .innerJoin('users', 'users.id', 'account_members.user_id')
    .select(['users.id', 'users.email_sealed', 'users.language'])
    .where('account_members.account_id', '=', endpoint.account_id)
    .where('account_members.role', '=', 'owner')
    .execute()
  const days = failingDays(deps.clock)
  for (const user of users) {
    // Each owner reads it in the language they chose, else English.
    const t = translator(isLocale(user.language) ? user.language : 'en')
    try {
      await deps.mailer.send({
        to: deps.keyring.open(user.email_sealed, `users.email:${user.id}`),
        subject: t.t('mail.webhookDisabled.subject'),
        text: t.t('mail.webhookDisabled.text', { url: endpoint.url, id: endpoint.id, days }),
      })
    } catch (error) {
      deps.log.warn({ err: error, endpoint: endpoint.id }, 'could not mail about a disabled webhook endpoint')
    }
  }
}

/** Defines the fan-out and delivery jobs on a runner (every instance runs them). */
export function defineWebhookJobs(jobs: JobRunner, deps: WebhookDeps): void {
  // Fan-outs that run together share one transaction, and hand the first attempts to this runner.
  const engine = engineFor(deps)
  const fanOut = batched((ids: string[]) => fanOutBatch(deps.db, ids, jobs, engine.primed))
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
