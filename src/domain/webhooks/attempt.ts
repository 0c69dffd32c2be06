/**
 * One attempt of a delivery: read what it needs (or take what its fan-out read), sign and POST
 * the event, and record what the answer means. The request holds a job's slot; writing the
 * outcome does not, so another job may start its request meanwhile.
 */
import type { Logger } from 'pino'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { FetchError, type FetchResult, type SafeFetcher } from '../../infra/fetcher.ts'
import type { JobContext } from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { translator } from '../i18n/translator.ts'
import { isLocale } from '../locales.ts'
import type { AttemptEndpoint, AttemptInput } from './attempt-read.ts'
import { plainSuccess, recordAttempt } from './attempt-record.ts'
import { batchFor } from './batch.ts'
import { HELD_DISABLED, HELD_FOR_PLAN, signingSecrets, webhooksAllowed, type EndpointRow } from './endpoints.ts'
import { eventBody, openEvent } from './events.ts'
import { classify, decide, failingDays, type Sent } from './outcome.ts'
import type { DeliverPayload } from './queue-delivery.ts'
import type { RetryClock } from './retry.ts'
import { webhookHeaders } from './signature.ts'

/** The first kilobyte of a receiver's answer is kept with each attempt. */
const RESPONSE_EXCERPT_BYTES = 1024

export interface WebhookDeps {
  db: Db
  keyring: Keyring
  fetcher: SafeFetcher
  mailer: Mailer
  log: Logger
  clock: RetryClock
  userAgent?: string
}

/** Signs and POSTs the event; a refused or failed request is answered as a FetchError. */
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

/** A delivery queued before the endpoint was turned off, or before a downgrade, is held back the way the fan-out holds back new ones. */
async function holdBack(deps: WebhookDeps, input: AttemptInput, attempt: number): Promise<boolean> {
  const { delivery, endpoint } = input
  const held = !endpoint.enabled ? HELD_DISABLED : !webhooksAllowed(endpoint.plan) ? HELD_FOR_PLAN : undefined
  if (!held) return false
  await deps.db
    .updateTable('webhook_deliveries')
    .set({ state: 'dead', ...held, failed_at: new Date(deps.clock.now()) })
    .where('id', '=', delivery.id)
    .where('state', '=', 'pending')
    .where('attempts', '=', attempt - 1)
    .execute()
  return true
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
  const batch = batchFor(deps)
  const input = (payload.attempt === 1 ? batch.takePrimed(payload.delivery_id) : undefined) ?? (await batch.read(payload.delivery_id))
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

  const sent: Sent = { attempt: payload.attempt, started, finished, firstAttemptAt, result, outcome }
  if (job && outcome.kind === 'delivered' && endpoint.failing_since === null && !(result instanceof FetchError)) {
    // The common case: nothing changes but the delivery and its attempt row.
    await batch.recordSuccess(plainSuccess(keyring, job.job, input, sent, result))
    job.completed()
    return
  }

  const decision = decide(clock, endpoint, sent)
  const recorded = await recordAttempt(deps, input, sent, decision)
  if (recorded && decision.disableForFailing) await mailDisabled(deps, endpoint)
}

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
