/**
 * When a failed webhook delivery is tried again (DESIGN.md 8). The schedule is a list of offsets
 * from the first try, so the whole retry window is its last entry (24 hours); each retry comes a
 * little early by a random share of the gap before it (jitter), so endpoints that failed together
 * are not hit together again, and no retry falls past the window. Everything that decides time is
 * in `RetryClock`, which tests replace so a day of retries runs in a second.
 */

export interface RetryClock {
  now(): number
  /** Offsets in ms from the first try at which retry 1, 2, … is due. */
  scheduleMs: readonly number[]
  /** Share (0..1) of the gap before a retry by which it may come early. */
  jitter: number
  /** Deadline of one attempt. */
  timeoutMs: number
  /** An endpoint that has failed every attempt for this long is disabled. */
  disableAfterMs: number
  /** Lease of a delivery job: a worker that dies mid-attempt loses the job after it. */
  leaseMs: number
}

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

export const DEFAULT_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 24 * HOUR]

export function defaultRetryClock(): RetryClock {
  return {
    now: () => Date.now(),
    scheduleMs: DEFAULT_SCHEDULE_MS,
    jitter: 0.1,
    timeoutMs: 10 * SECOND,
    disableAfterMs: 5 * 24 * HOUR,
    leaseMs: 15 * SECOND,
  }
}

/**
 * The time of the next attempt after `attemptsMade` failed ones, or undefined when the window is
 * spent. A Retry-After the receiver asked for moves the retry later, never earlier; one that
 * falls past the window ends the retries.
 */
export function nextAttemptAt(clock: RetryClock, firstAttemptAt: number, attemptsMade: number, retryAfterMs?: number): number | undefined {
  const offset = clock.scheduleMs[attemptsMade - 1]
  if (offset === undefined) return undefined
  const gap = offset - (clock.scheduleMs[attemptsMade - 2] ?? 0)
  let due = firstAttemptAt + offset - Math.random() * clock.jitter * gap
  if (retryAfterMs !== undefined) due = Math.max(due, clock.now() + retryAfterMs)
  const windowEnd = firstAttemptAt + (clock.scheduleMs.at(-1) ?? 0)
  return due > windowEnd ? undefined : Math.max(due, clock.now())
}

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3), in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
