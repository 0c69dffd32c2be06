import { sql } from 'kysely'
import type { Logger } from 'pino'
import { newId, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { FetchError, type FetchResult, type SafeFetcher } from '../infra/fetcher.ts'
import { enqueueJob, type JobRunner } from '../infra/jobs.ts'
import type { Mailer } from '../infra/mailer.ts'
import { nextAttemptAt, parseRetryAfter, type RetryClock } from '../infra/webhook-retry.ts'
import { webhookHeaders } from '../infra/webhook-signature.ts'
import { eventBody, FANOUT_JOB, openEvent } from './events.ts'
import { PLAN_REQUIRED_ERROR, signingSecrets, webhooksAllowed, type EndpointRow } from './webhooks.ts'

/**
 * The delivery engine (DESIGN.md 8). Each attempt of each delivery is one job, keyed by delivery
 * and attempt number, so two workers never make the same attempt at once; a worker that dies
 * mid-attempt loses its lease and the attempt is made again. An attempt's outcome, the next
 * attempt's job and the endpoint's health are written in one transaction, guarded by the attempt
 * number, so a late outcome from a worker that lost its lease changes nothing.
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

/** Queues the first attempt of a new delivery of `eventId` to `endpointId`. */
export async function queueDelivery(db: Db, accountId: string, endpointId: string, eventId: string): Promise<string> {
  const id = newId('dlv')
  await db.insertInto('webhook_deliveries').values({ id, account_id: accountId, endpoint_id: endpointId, event_id: eventId }).execute()
  await enqueueJob(db, DELIVER_JOB, { delivery_id: id, attempt: 1 } satisfies DeliverPayload, { uniqueKey: `${id}:1` })
  return id
}

/** The type of the event POST /v1/webhooks/{id}/test sends; it goes to that endpoint only. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** Stores a test event and queues its delivery to one endpoint, bypassing the fan-out. */
export async function queueTestDelivery(db: Db, accountId: string, endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = newId('evt')
  await db
    .insertInto('events')
    .values({ id: eventId, account_id: accountId, site_id: null, type: TEST_EVENT_TYPE, data: JSON.stringify({ endpoint_id: endpointId, message: 'A test delivery from your webhook settings' }), personal_sealed: null })
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
  return db.transaction().execute(async (trx) => {
    const event = await trx
      .selectFrom('events as e')
      .innerJoin('accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.account_id', 'e.type', 'a.plan'])
      .where('e.id', '=', eventId)
      .executeTakeFirst()
    if (!event) return 0
    const done = await trx.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).limit(1).executeTakeFirst()
    if (done) return 0
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'enabled'])
      .where('account_id', '=', event.account_id)
      .where(sql<boolean>`(event_types = '[]'::jsonb or event_types @> ${JSON.stringify([event.type])}::jsonb)`)
      .execute()
    const allowed = webhooksAllowed(event.plan)
    for (const endpoint of endpoints) {
      if (endpoint.enabled && allowed) {
        await queueDelivery(trx, event.account_id, endpoint.id, event.id)
      } else {
        await trx
          .insertInto('webhook_deliveries')
          .values({ id: newId('dlv'), account_id: event.account_id, endpoint_id: endpoint.id, event_id: event.id, state: 'dead', last_error: endpoint.enabled ? PLAN_REQUIRED_ERROR : 'endpoint disabled', failed_at: new Date() })
          .execute()
      }
    }
    return endpoints.length
  })
}

type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; retryAfterMs?: number | undefined }
  | { kind: 'dead'; status: number | null; error: string }
  | { kind: 'gone'; status: 410; error: string }

function classify(result: FetchResult | FetchError, now: number): Outcome {
  if (result instanceof FetchError) {
    // Timeouts and network failures are the receiver's passing trouble; a refused address or URL is not.
    const transient = result.code === 'timeout' || result.code === 'connection_failed' || result.code === 'dns_failed' || result.code === 'invalid_response'
    const error = result.code === 'too_many_redirects' ? 'redirects are not followed' : result.message
    return transient ? { kind: 'retry', status: null, error } : { kind: 'dead', status: null, error }
  }
  const { status } = result
  if (status >= 200 && status < 300) return { kind: 'delivered', status }
  if (status === 410) return { kind: 'gone', status, error: 'the endpoint answered 410 Gone' }
  if (status >= 500 || status === 429) {
    return { kind: 'retry', status, error: `the endpoint answered ${status}`, retryAfterMs: parseRetryAfter(result.headers['retry-after'], now) }
  }
  return { kind: 'dead', status, error: `the endpoint answered ${status}` }
}

async function send(deps: WebhookDeps, endpoint: EndpointRow, eventId: string, body: string, signal: AbortSignal): Promise<FetchResult | FetchError> {
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

/** Makes attempt number `attempt` of a delivery, if it is still the one due. */
export async function attemptDelivery(deps: WebhookDeps, payload: DeliverPayload, signal: AbortSignal): Promise<void> {
  const { db, keyring, clock } = deps
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', payload.delivery_id).executeTakeFirst()
  if (!delivery || delivery.state !== 'pending' || delivery.attempts !== payload.attempt - 1) return
  const [endpoint, eventRow] = await Promise.all([
    db.selectFrom('webhook_endpoints as w').innerJoin('accounts as a', 'a.id', 'w.account_id').selectAll('w').select('a.plan').where('w.id', '=', delivery.endpoint_id).executeTakeFirstOrThrow(),
    db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirstOrThrow(),
  ])
  // A delivery queued before the endpoint was turned off, or before a downgrade, is held back the
  // same way the fan-out holds back new ones.
  const heldBack = !endpoint.enabled ? 'endpoint disabled' : !webhooksAllowed(endpoint.plan) ? PLAN_REQUIRED_ERROR : undefined
  if (heldBack) {
    await db
      .updateTable('webhook_deliveries')
      .set({ state: 'dead', last_error: heldBack, failed_at: new Date(clock.now()) })
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', payload.attempt - 1)
      .execute()
    return
  }
  const event = openEvent(keyring, eventRow)

  const started = clock.now()
  const result = await send(deps, endpoint, event.id, eventBody(event), signal)
  const finished = clock.now()
  const outcome = classify(result, finished)
  const firstAttemptAt = delivery.first_attempt_at?.getTime() ?? started
  const failingSince = outcome.kind === 'delivered' ? undefined : (endpoint.failing_since?.getTime() ?? started)
  const disableForFailing = (outcome.kind === 'retry' || outcome.kind === 'dead') && failingSince !== undefined && finished - failingSince >= clock.disableAfterMs
  const retryAt = outcome.kind === 'retry' && !disableForFailing ? nextAttemptAt(clock, firstAttemptAt, payload.attempt, outcome.retryAfterMs) : undefined

  let state: 'succeeded' | 'pending' | 'dead' = 'dead'
  let error: string | null = outcome.kind === 'delivered' ? null : outcome.error
  if (outcome.kind === 'delivered') state = 'succeeded'
  else if (retryAt !== undefined) state = 'pending'
  else if (disableForFailing) error = `${error}; the endpoint was disabled after failing every attempt for ${failingDays(clock)} days`
  else if (outcome.kind === 'retry') error = `${error}; retries exhausted`

  const recorded = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: payload.attempt,
        first_attempt_at: new Date(firstAttemptAt),
        last_status: outcome.status,
        last_error: error,
        state,
        ...(state === 'succeeded' ? { delivered_at: new Date(finished) } : {}),
        ...(state === 'dead' ? { failed_at: new Date(finished) } : {}),
      })
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .where('attempts', '=', payload.attempt - 1)
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
        attempt: payload.attempt,
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
      await enqueueJob(trx, DELIVER_JOB, { delivery_id: delivery.id, attempt: payload.attempt + 1 } satisfies DeliverPayload, {
        delayMs,
        uniqueKey: `${delivery.id}:${payload.attempt + 1}`,
      })
    }
    return true
  })
  if (recorded && disableForFailing) await mailDisabled(deps, endpoint)
}

const failingDays = (clock: RetryClock) => Math.round(clock.disableAfterMs / 86_400_000)

/** Tells the account's people that an endpoint was turned off after failing for days. */
async function mailDisabled(deps: WebhookDeps, endpoint: EndpointRow): Promise<void> {
  const users = await deps.db.selectFrom('users').select(['id', 'email_sealed']).where('account_id', '=', endpoint.account_id).execute()
  const days = failingDays(deps.clock)
  for (const user of users) {
    try {
      await deps.mailer.send({
        to: deps.keyring.open(user.email_sealed, `users.email:${user.id}`),
        subject: 'A webhook endpoint was disabled',
        text:
          `Every delivery to your webhook endpoint ${endpoint.url} (${endpoint.id}) has failed for ${days} days, so it was disabled.\n` +
          'Events meanwhile are kept as dead letters. Fix the endpoint, enable it again (PATCH /v1/webhooks/{id} with enabled true) and replay them.\n',
      })
    } catch (error) {
      deps.log.warn({ err: error, endpoint: endpoint.id }, 'could not mail about a disabled webhook endpoint')
    }
  }
}

/** Defines the fan-out and delivery jobs on a runner (every instance runs them). */
export function defineWebhookJobs(jobs: JobRunner, deps: WebhookDeps): void {
  jobs.define<{ event_id: string }>(FANOUT_JOB, { maxAttempts: 20, leaseMs: deps.clock.leaseMs, handler: async (payload) => void (await fanOut(deps.db, payload.event_id)) })
  jobs.define<DeliverPayload>(DELIVER_JOB, {
    maxAttempts: 10,
    leaseMs: deps.clock.leaseMs,
    handler: (payload, { signal }) => attemptDelivery(deps, payload, signal),
  })
}
