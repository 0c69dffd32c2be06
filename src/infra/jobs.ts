import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { newId } from './crypto.ts'
import type { DataStore, Db, Unlisten } from './db.ts'
import type { JobsTable } from './tables.ts'
import type { Selectable } from 'kysely'

export type Job = Selectable<JobsTable>
export const JOBS_CHANNEL = 'jobs'

export interface JobContext {
  job: Job
  /** Aborted when the lease is lost (another worker may now own the job). */
  signal: AbortSignal
  log: Logger
}

export interface JobDefinition<P = unknown> {
  handler: (payload: P, context: JobContext) => Promise<void>
  /** Total tries before the job is kept as failed. */
  maxAttempts?: number
  /** How long a claim holds before another worker may take the job again. */
  leaseMs?: number
  /** Delay before retry number `attempt` (1-based); exponential with full jitter by default. */
  backoffMs?: (attempt: number) => number
}

export interface EnqueueOptions {
  delayMs?: number
  runAt?: Date
  maxAttempts?: number
  /** While a job with this key is pending, enqueueing another is a no-op. */
  uniqueKey?: string
}

const DEFAULT_MAX_ATTEMPTS = 10
const DEFAULT_LEASE_MS = 60_000

/** Exponential backoff with full jitter: a random wait up to base * 2^(attempt-1), capped. */
export function exponentialBackoff(baseMs = 1000, capMs = 3_600_000) {
  return (attempt: number) => Math.round(Math.random() * Math.min(capMs, baseMs * 2 ** (attempt - 1)))
}

/**
 * Adds a job. Pass the caller's transaction as `db` so the job commits (and its NOTIFY is sent)
 * together with the data it is about.
 */
export async function enqueueJob(db: Db, name: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | undefined> {
  const runAt = options.runAt ?? new Date(Date.now() + (options.delayMs ?? 0))
  const row = await db
    .insertInto('jobs')
    .values({
      id: newId('job'),
      name,
      payload: JSON.stringify(payload ?? null),
      max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      run_at: runAt,
      unique_key: options.uniqueKey ?? null,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      finished_at: null,
    })
    .onConflict((oc) => oc.columns(['name', 'unique_key']).where('unique_key', 'is not', null).where('state', 'in', ['queued', 'running']).doNothing())
    .returning('id')
    .executeTakeFirst()
  if (row) await sql`select pg_notify(${JOBS_CHANNEL}, ${name})`.execute(db)
  return row?.id
}

export interface JobRunnerOptions {
  store: DataStore
  log: Logger
  /** Jobs run at once by this process. */
  concurrency?: number
  /** Fallback poll for delayed retries and expired leases, in ms. */
  pollIntervalMs?: number
}

/**
 * Claims jobs with FOR UPDATE SKIP LOCKED, so no two workers ever hold the same job; a claim is a
 * lease that expires, so a job whose worker died is taken again; each claim carries a fresh owner
 * token, so a worker that lost its lease cannot record an outcome over the new owner's.
 */
export class JobRunner {
  readonly #store: DataStore
  readonly #log: Logger
  readonly #concurrency: number
  readonly #pollIntervalMs: number
  readonly #definitions = new Map<string, Required<Omit<JobDefinition, 'handler'>> & Pick<JobDefinition, 'handler'>>()
  readonly #inFlight = new Set<Promise<void>>()
  #running = false
  #unlisten: Unlisten | undefined
  #pollTimer: NodeJS.Timeout | undefined
  #draining = false
  #wakeRequested = false

  constructor(options: JobRunnerOptions) {
    this.#store = options.store
    this.#log = options.log.child({ component: 'jobs' })
    this.#concurrency = options.concurrency ?? 4
    this.#pollIntervalMs = options.pollIntervalMs ?? 5000
  }

  define<P>(name: string, definition: JobDefinition<P>): void {
    this.#definitions.set(name, {
      handler: definition.handler as JobDefinition['handler'],
      maxAttempts: definition.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      leaseMs: definition.leaseMs ?? DEFAULT_LEASE_MS,
      backoffMs: definition.backoffMs ?? exponentialBackoff(),
    })
  }

  enqueue(name: string, payload: unknown, options?: EnqueueOptions) {
    return enqueueJob(this.#store.db, name, payload, { maxAttempts: this.#definitions.get(name)?.maxAttempts, ...options })
  }

  async start(): Promise<void> {
    if (this.#running) return
    this.#running = true
    this.#unlisten = await this.#store.listen(JOBS_CHANNEL, () => this.wake())
    this.#pollTimer = setInterval(() => this.wake(), this.#pollIntervalMs)
    this.#pollTimer.unref()
    this.wake()
  }

  /** Stops claiming, then waits for the jobs in flight to finish and record their outcome. */
  async stop(): Promise<void> {
    this.#running = false
    clearInterval(this.#pollTimer)
    await this.#unlisten?.()
    this.#unlisten = undefined
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight])
  }

  get inFlight(): number {
    return this.#inFlight.size
  }

  /** Claims as many jobs as there is room for; coalesces wake-ups that arrive meanwhile. */
  wake(): void {
    if (!this.#running) return
    if (this.#draining) {
      this.#wakeRequested = true
      return
    }
    this.#draining = true
    void this.#drain().finally(() => {
      this.#draining = false
      if (this.#wakeRequested) {
        this.#wakeRequested = false
        this.wake()
      }
    })
  }

  async #drain(): Promise<void> {
    while (this.#running && this.#inFlight.size < this.#concurrency && this.#definitions.size > 0) {
      let jobs: Job[]
      try {
        jobs = await this.#claim(this.#concurrency - this.#inFlight.size)
      } catch (error) {
        this.#log.warn({ err: error }, 'claiming jobs failed')
        return
      }
      if (jobs.length === 0) return
      for (const job of jobs) {
        const run = this.#run(job).finally(() => {
          this.#inFlight.delete(run)
          this.wake()
        })
        this.#inFlight.add(run)
      }
    }
  }

  async #claim(limit: number): Promise<Job[]> {
    const names = [...this.#definitions.keys()]
    const owner = randomUUID()
    const leaseMs = Math.max(...[...this.#definitions.values()].map((d) => d.leaseMs))
    // Jobs whose claimant died (lease run out) first, then queued ones by due time; each branch
    // reads its own index in order, so a long backlog costs a claim nothing extra.
    const { rows } = await sql<Job>`
      with expired as (
        select id from jobs
        where state = 'running' and lease_until < now() and name = any(${names}::text[])
        order by lease_until limit ${limit}
        for update skip locked
      ), queued as (
        select id from jobs
        where state = 'queued' and run_at <= now() and name = any(${names}::text[])
        order by run_at limit ${limit}
        for update skip locked
      )
      update jobs set state = 'running', attempts = attempts + 1, lease_owner = ${owner},
        lease_until = now() + make_interval(secs => ${leaseMs / 1000})
      where id in (select id from expired union all select id from queued limit ${limit})
      returning *`.execute(this.#store.db)
    return rows
  }

  async #run(job: Job): Promise<void> {
    const definition = this.#definitions.get(job.name)
    if (!definition) return
    const log = this.#log.child({ job: job.id, name: job.name, attempt: job.attempts })
    if (job.attempts > definition.maxAttempts) {
      await this.#finish(job, 'failed', 'lease expired on the final attempt', log)
      return
    }
    const controller = new AbortController()
    // Renew the lease while the handler works, so long jobs are not taken over.
    const renew = setInterval(() => {
      void this.#store.db
        .updateTable('jobs')
        .set({ lease_until: sql`now() + make_interval(secs => ${definition.leaseMs / 1000})` })
        .where('id', '=', job.id)
        .where('lease_owner', '=', job.lease_owner)
        .executeTakeFirst()
        .then((r) => {
          if (r.numUpdatedRows === 0n) controller.abort(new Error('lease lost'))
        })
        .catch(() => {})
    }, Math.max(50, definition.leaseMs / 3))
    try {
      await definition.handler(job.payload, { job, signal: controller.signal, log })
      await this.#finish(job, 'succeeded', null, log)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (job.attempts >= definition.maxAttempts) {
        log.error({ err: error }, 'job failed for good')
        await this.#finish(job, 'failed', message, log)
      } else {
        const delay = definition.backoffMs(job.attempts)
        log.warn({ err: error, retryInMs: delay }, 'job failed; will retry')
        await this.#retry(job, message, delay, log)
      }
    } finally {
      clearInterval(renew)
    }
  }

  async #finish(job: Job, state: 'succeeded' | 'failed', error: string | null, log: Logger): Promise<void> {
    await this.#record(log, () =>
      this.#store.db
        .updateTable('jobs')
        .set({ state, finished_at: new Date(), lease_owner: null, lease_until: null, last_error: error })
        .where('id', '=', job.id)
        .where('lease_owner', '=', job.lease_owner)
        .executeTakeFirst(),
    )
  }

  async #retry(job: Job, error: string, delayMs: number, log: Logger): Promise<void> {
    await this.#record(log, () =>
      this.#store.db
        .updateTable('jobs')
        .set({ state: 'queued', run_at: new Date(Date.now() + delayMs), lease_owner: null, lease_until: null, last_error: error })
        .where('id', '=', job.id)
        .where('lease_owner', '=', job.lease_owner)
        .executeTakeFirst(),
    )
  }

  /** An outcome that cannot be written (database away) is left to the lease: the job runs again. */
  async #record(log: Logger, write: () => Promise<{ numUpdatedRows: bigint }>): Promise<void> {
    try {
      const result = await write()
      if (result.numUpdatedRows === 0n) log.warn('lease was lost before the outcome was recorded')
    } catch (error) {
      log.warn({ err: error }, 'could not record job outcome; it will run again after its lease')
    }
  }
}
