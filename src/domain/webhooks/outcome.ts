/**
 * What a receiver's answer means, written apart from the request and the database so the rules
 * read in one place: a 2xx delivers, 410 turns the endpoint off, 5xx, 429 and passing network
 * trouble are tried again on the retry clock, anything else is a dead letter; and an endpoint that
 * failed every attempt for the clock's days is turned off.
 */
import { FetchError, type FetchErrorCode, type FetchResult } from '../../infra/fetcher.ts'
import type { WebhookFailure } from '../../infra/tables.ts'
import type { AttemptEndpoint } from './attempt-read.ts'
import { nextAttemptAt, parseRetryAfter, type RetryClock } from './retry.ts'

export type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; failure: WebhookFailure; retryAfterMs?: number | undefined }
  | { kind: 'dead'; status: number | null; error: string; failure: WebhookFailure }
  | { kind: 'gone'; status: 410; error: string; failure: 'status' }

/** The failure a request that got no answer stands for. */
const FAILURES: Record<FetchErrorCode, WebhookFailure> = {
  dns_failed: 'dns',
  timeout: 'timeout',
  connection_failed: 'connection',
  invalid_response: 'connection',
  too_large: 'connection',
  too_many_redirects: 'redirect',
  forbidden_address: 'address',
  invalid_domain: 'address',
  invalid_url: 'address',
}

/** What an answer (or a request that got none) means for the delivery. */
export function classify(result: FetchResult | FetchError, now: number): Outcome {
  if (result instanceof FetchError) {
    // Timeouts and network failures are the receiver's passing trouble; a refused address or URL is not.
    const transient =
      result.code === 'timeout' || result.code === 'connection_failed' || result.code === 'dns_failed' || result.code === 'invalid_response'
    const error = result.code === 'too_many_redirects' ? 'redirects are not followed' : result.message
    const failure = FAILURES[result.code]
    return transient ? { kind: 'retry', status: null, error, failure } : { kind: 'dead', status: null, error, failure }
  }
  const { status } = result
  if (status >= 200 && status < 300) return { kind: 'delivered', status }
  if (status === 410) return { kind: 'gone', status, error: 'the endpoint answered 410 Gone', failure: 'status' }
  if (status >= 500 || status === 429) {
    return {
      kind: 'retry',
      status,
      error: `the endpoint answered ${status}`,
      failure: 'status',
      retryAfterMs: parseRetryAfter(result.headers['retry-after'], now),
    }
  }
  return { kind: 'dead', status, error: `the endpoint answered ${status}`, failure: 'status' }
}

/** One request made: when it started and ended, what came back, and what that means. */
export interface Sent {
  attempt: number
  started: number
  finished: number
  firstAttemptAt: number
  result: FetchResult | FetchError
  outcome: Outcome
}

/** What a failed or unusual attempt changes: the delivery's state and error, the endpoint's failing spell, the next try. */
export interface Decision {
  state: 'succeeded' | 'pending' | 'dead'
  error: string | null
  failure: WebhookFailure | null
  failingSince: number | undefined
  disableForFailing: boolean
  retryAt: number | undefined
}

/** What an attempt's outcome changes, given how long the endpoint has been failing. */
export function decide(clock: RetryClock, endpoint: AttemptEndpoint, sent: Sent): Decision {
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
  const failure = outcome.kind === 'delivered' ? null : outcome.failure
  return { state, error, failure, failingSince, disableForFailing, retryAt }
}

/** How long an endpoint fails every attempt before it is turned off, in whole days, as people are told. */
export const failingDays = (clock: RetryClock) => Math.round(clock.disableAfterMs / 86_400_000)
