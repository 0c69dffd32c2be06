import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { newId } from './crypto.ts'
import type { DataStore, Db, Unlisten } from './db.ts'
import { LinkedSet, type Linked } from './linked-set.ts'
import type { JobsTable } from './tables.ts'
import type { Compilable, RawBuilder, Selectable } from 'kysely'

export type Job = Selectable<JobsTable>
export const JOBS_CHANNEL = 'jobs'

export interface JobContext {
  job: Job
  /** Aborted when the lease is lost (another worker may now own the job). */
  signal: AbortSignal
  log: Logger
  /**
   * Says the job's costly part is done and it only records its result now (a database write), so
   * another job may start in its slot. The lease is still held and renewed until the handler
   * returns; at most `concurrency` jobs wait so at once, beyond that the call changes nothing.
   */
  releaseSlot(): void
  /**
   * Says the handler has written the job's success itself, in the statement that records its
   * work (jobWrites.complete, fenced by `job.lease_owner`), so the runner writes nothing
   * more when it returns. Should the handler fail after all, the outcome the runner writes is
   * fenced by the same owner token, which the completion cleared: it changes nothing.
   */
  completed(): void
}

/**
 * A handler's JobContext, its logger made on first use. A class with the getter on its
 * prototype, not an object literal with its own `get log()`: each such literal carried a new
 * accessor, so V8 gave every call a new hidden class reached from a shared one's transitions,
 * and young-generation collections kept whatever the getter's closure reached (see
 * LinkedSet for the same effect).
 */
class JobCall implements JobContext {
  readonly job: Job
  readonly signal: AbortSignal
  readonly releaseSlot: () => void
  readonly completed: () => void
  readonly #log: () => Logger

  constructor(job: Job, signal: AbortSignal, log: () => Logger, releaseSlot: () => void, completed: () => void) {
    this.job = job
    this.signal = signal
    this.#log = log
    this.releaseSlot = releaseSlot
    this.completed = completed
  }

  get log(): Logger {
    return this.#log()
  }
}

/**
 * A claim a job's handler makes for work it queues (see JobRunner.reserve): the jobs are inserted
 * already running under this owner and lease (jobWrites.enqueueClaimed), and handed to the runner
 * once they are committed.
 */
export interface ClaimToken {
  owner: string
  leaseMs: number
  /** How many of the new jobs the runner takes; the rest are queued as usual. */
  room: number
  /** When the claim was made (performance.now()), before the lease started in the database. */
  claimedAt: number
}

export interface JobDefinition<P = unknown> {
  handler: (payload: P, context: JobContext) => Promise<void>
  /** Total tries before the job is kept as failed. */
  maxAttempts?: number
  /**
   * How long a claim holds unless renewed; it is renewed every third of it while the handler runs,
   * so it bounds only how long the job of a worker that died waits before another takes it.
   */
  leaseMs?: number
  /** Delay before retry number `attempt` (1-based); exponential with full jitter by default. */
  backoffMs?: (attempt: number) => number
}

/**
 * Queues a recurring job's next daily run at `hour`:`minute` UTC after `from`, keyed by its day, so
 * N instances (and the run itself, scheduling the next) queue one run a day.
 */
export function scheduleDaily(
  db: Db,
  name: string,
  time: { hour: number; minute?: number },
  from = new Date(),
): Promise<string | undefined> {
  const at = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), time.hour, time.minute ?? 0))
  if (at <= from) at.setUTCDate(at.getUTCDate() + 1)
  return enqueueJob(db, name, {}, { runAt: at, uniqueKey: at.toISOString().slice(0, 10), maxAttempts: 5 })
}

/**
 * A job as the jobs plugin (src/jobs.ts) registers it on the runner: its name and definition and,
 * for a recurring job, how its next run is put in place (once the app is ready, and by each run).
 */
export interface NamedJob<P = any> {
  name: string
  definition: JobDefinition<P>
  scheduleNext?: () => Promise<unknown>
}

export interface EnqueueOptions {
  delayMs?: number
  runAt?: Date
  maxAttempts?: number
  /** While a job with this key is pending, enqueueing another is a no-op. */
  uniqueKey?: string
}

const DEFAULT_MAX_ATTEMPTS = 10
/** Short, since it is renewed while a job runs: the work of a dead instance resumes within it plus a poll. */
const DEFAULT_LEASE_MS = 15_000
/** Jobs finished within this window are how many the runner claims ahead of its free slots. */
const CLAIM_AHEAD_WINDOW_MS = 200
/**
 * A job claimed ahead that found no slot within this time (or a third of its lease, if shorter)
 * goes back to the queue, for another worker or a later claim; so a job always starts with most
 * of its lease left.
 */
const MAX_READY_WAIT_MS = 1000

/** Exponential backoff with full jitter: a random wait up to base * 2^(attempt-1), capped. */
export function exponentialBackoff(baseMs = 1000, capMs = 3_600_000) {
  return (attempt: number) => Math.round(Math.random() * Math.min(capMs, baseMs * 2 ** (attempt - 1)))
}

/**
 * Adds a job. Pass the caller's transaction as `db` so the job commits (and its NOTIFY is sent)
 * together with the data it is about.
 */
export async function enqueueJob(db: Db, name: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | undefined> {
  const [id] = await enqueueJobs(db, [{ name, payload, options }])
  return id
}

export interface NewJob {
  name: string
  payload: unknown
  options?: EnqueueOptions
}

/**
 * Adds several jobs in one statement (a fan-out queues one per delivery); answers each one's id,
 * or undefined where a pending job with the same unique key already existed.
 */
export async function enqueueJobs(db: Db, jobs: readonly NewJob[]): Promise<Array<string | undefined>> {
  if (jobs.length === 0) return []
  const now = Date.now()
  const values = jobs.map(({ name, payload, options = {} }) => ({
    id: newId('job'),
    name,
    payload: JSON.stringify(payload ?? null),
    max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    run_at: options.runAt ?? new Date(now + (options.delayMs ?? 0)),
    unique_key: options.uniqueKey ?? null,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    finished_at: null,
  }))
  // The NOTIFY rides on the insert (one per row actually inserted, sent at commit) instead of
  // costing a round trip of its own.
  const rows = await db
    .insertInto('jobs')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['name', 'unique_key']).where('unique_key', 'is not', null).where('state', 'in', ['queued', 'running']).doNothing(),
    )
    .returning(['id', sql<void>`pg_notify(${JOBS_CHANNEL}, name)`.as('notified')])
    .execute()
  const inserted = new Set(rows.map((r) => r.id))
  return values.map((v) => (inserted.has(v.id) ? v.id : undefined))
}

/**
 * New jobs as the rows of a statement: their ids made here, as JSON in one parameter, so the
 * statement keeps one text whatever their number.
 */
function jobRows(jobs: readonly NewJob[]) {
  const now = Date.now()
  const rows = JSON.stringify(
    jobs.map(({ name, payload, options = {} }) => ({
      id: newId('job'),
      name,
      payload: payload ?? null,
      max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      run_at: options.runAt ?? new Date(now + (options.delayMs ?? 0)),
      unique_key: options.uniqueKey ?? null,
    })),
  )
  return sql`from jsonb_to_recordset(${rows}::jsonb) as v(id text, name text, payload jsonb, max_attempts int, run_at timestamptz, unique_key text)`
}

/** A pending job with the same unique key makes the insert of a new one a no-op. */
const UNLESS_PENDING = sql`on conflict (name, unique_key) where unique_key is not null and state in ('queued', 'running') do nothing`

/** A job as its claim holds it: the owner token fences whatever is written about it. */
export interface ClaimedJob {
  id: string
  owner: string
}

/**
 * The queue's writes as parts of a caller's statement (each a data-modifying CTE), for work that
 * records itself and its jobs at once: the whole commits or fails together, in one round trip. A
 * caller composes the part it is given and names neither the table nor its columns: the queue's
 * SQL is written here only (the architecture test refuses it elsewhere). A pending job with the
 * same unique key makes the insert of a new one a no-op.
 */
export const jobWrites = {
  /** Queues jobs, each NOTIFY sent at commit. Returns the ids inserted. */
  enqueue: (jobs: readonly NewJob[]) =>
    sql<{ id: string }>`insert into jobs (id, name, payload, max_attempts, run_at, unique_key)
      select id, name, payload, max_attempts, run_at, unique_key ${jobRows(jobs)}
      ${UNLESS_PENDING} returning id, pg_notify(${JOBS_CHANNEL}, name)`,

  /**
   * Inserts jobs as a claim of JobRunner.reserve() would leave them (running, first attempt, leased
   * to its owner), for that runner to take with adopt() once the statement commits: no claim of
   * their own, and no NOTIFY, since no other worker may take them before their lease runs out.
   * Returns the jobs inserted.
   */
  enqueueClaimed: (jobs: readonly NewJob[], claim: ClaimToken) =>
    sql<Job>`insert into jobs (id, name, payload, state, attempts, max_attempts, run_at, unique_key, lease_owner, lease_until)
      select id, name, payload, 'running', 1, max_attempts, run_at, unique_key, ${claim.owner}, now() + make_interval(secs => ${claim.leaseMs / 1000}::float8)
      ${jobRows(jobs)}
      ${UNLESS_PENDING} returning *`,

  /**
   * Marks jobs done, each only while its claim still owns it, as the runner marks a success (the
   * handler then calls JobContext.completed). The ids are matched as an array too, so the rows are
   * found through the primary key whatever the planner makes of the pairs, as a growing table
   * would otherwise risk a scan. Returns the ids marked.
   */
  complete: (jobs: readonly ClaimedJob[]) => {
    const ids = jobs.map((job) => job.id)
    return sql<{ id: string }>`update jobs as j
      set state = 'succeeded', finished_at = now(), last_error = null, lease_owner = null, lease_until = null
      from unnest(${ids}::text[], ${jobs.map((job) => job.owner)}::text[]) as c(id, owner)
      where j.id = any(${ids}::text[]) and j.id = c.id and j.lease_owner = c.owner
      returning j.id`
  },
}

/**
 * A claim of no jobs, for work queued outside a runner (jobWrites.enqueueClaimed of no jobs): the
 * statement keeps its text, and everything it queues is claimed the usual way.
 */
export const NO_CLAIM: ClaimToken = { owner: '', leaseMs: 0, room: 0, claimedAt: 0 }

/**
 * Work that many concurrently running jobs ask for (a read, an outcome to write) collected into
 * one call of `run` per batch, so a burst of N jobs costs a few database round trips instead of N
 * times a few. Items asked for while a batch is on its way wait for the next one. `run` answers
 * one result per item, in order. When a batch of several fails, each item is tried again alone,
 * so one bad item fails only its own caller; `run` must therefore write nothing when it throws
 * (one statement or one transaction).
 */
export function batched<T, R>(
  run: (items: T[]) => Promise<R[]>,
  options: { maxBatch?: number; maxInFlight?: number } = {},
): (item: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 100
  const maxInFlight = options.maxInFlight ?? 1
  type Waiting = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }
  let queue: Waiting[] = []
  let inFlight = 0
  let scheduled = false

  const settle = async (batch: Waiting[]) => {
    try {
      const results = await run(batch.map((w) => w.item))
      batch.forEach((w, i) => w.resolve(results[i] as R))
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error)
      await Promise.all(batch.map((w) => run([w.item]).then((results) => w.resolve(results[0] as R), w.reject)))
    }
  }
  const flush = () => {
    scheduled = false
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch)
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch)
      inFlight++
      void settle(batch).finally(() => {
        inFlight--
        schedule()
      })
    }
  }
  // Waiting one turn of the event loop lets every job started by the same claim join the batch.
  const schedule = () => {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return
    scheduled = true
    setImmediate(flush)
  }
  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject })
      schedule()
    })
}

interface Outcome {
  id: string
  owner: string
  /** `released`: claimed ahead but not run, back to queued with its attempt not counted. */
  state: 'succeeded' | 'failed' | 'queued' | 'released'
  error: string | null
  /** When a retry is due (state queued). */
  run_at: string | null
  finished_at: string | null
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
  /** The claim's leases by job type as JSON (#claimLeases), forgotten when a type is defined. */
  #leases: string | undefined
  /** Jobs running in a slot (linked sets, not Sets: see linked-set.ts). */
  readonly #inFlight = new LinkedSet<Promise<void>>()
  /** Jobs that gave their slot back and only record their result. */
  readonly #released = new LinkedSet<Promise<void>>()
  /** Claimed ahead, waiting for a slot (see #claimRoom). */
  #ready: Array<{ job: Job; claimedAt: number }> = []
  /** When the latest jobs finished, to size how far to claim ahead. */
  readonly #finishedAt: number[] = []
  /** Outcomes on their way to the database; stop() waits for them too. */
  readonly #recording = new LinkedSet<Promise<void>>()
  #running = false
  #unlisten: Unlisten | undefined
  #pollTimer: NodeJS.Timeout | undefined
  #draining: Promise<void> | undefined
  #wakeRequested = false

  constructor(options: JobRunnerOptions) {
    this.#store = options.store
    this.#log = options.log.child({ component: 'jobs' })
    this.#concurrency = options.concurrency ?? 4
    this.#pollIntervalMs = options.pollIntervalMs ?? 5000
  }

  define<P>(name: string, definition: JobDefinition<P>): void {
    this.#leases = undefined
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

  /**
   * Stops claiming, hands jobs claimed ahead back to the queue, then waits for the jobs in flight
   * to finish and record their outcome.
   */
  async stop(): Promise<void> {
    this.#running = false
    clearInterval(this.#pollTimer)
    await this.#unlisten?.()
    this.#unlisten = undefined
    await this.#draining
    for (const { job } of this.#ready.splice(0)) this.#handBack(job)
    const pending = () => [...this.#inFlight.values(), ...this.#released.values(), ...this.#recording.values()]
    while (pending().length > 0) await Promise.allSettled(pending())
  }

  get inFlight(): number {
    return this.#inFlight.size + this.#released.size
  }

  /**
   * A claim for up to `count` jobs a handler is about to queue, as many as this runner would claim
   * now (its free slots and claim-ahead): they go in already running (jobWrites.enqueueClaimed)
   * and are handed over with adopt() once committed, instead of being claimed back moments later.
   */
  reserve(count: number, name: string): ClaimToken {
    const ahead = Math.min(this.#concurrency, this.#finishedAt.length)
    const room = this.#running ? Math.max(0, Math.min(count, this.#concurrency + ahead - this.#inFlight.size - this.#ready.length)) : 0
    const leaseMs = this.#leaseMsOf(name)
    return { owner: randomUUID(), leaseMs, room, claimedAt: performance.now() }
  }

  /** Takes jobs inserted under a claim of reserve(), committed now, as if this runner had claimed them. */
  adopt(jobs: readonly Job[], token: ClaimToken): void {
    for (const job of jobs) {
      if (this.#running) this.#ready.push({ job, claimedAt: token.claimedAt })
      else this.#handBack(job)
    }
    if (this.#running) this.#startReady()
  }

  /** Claims as many jobs as there is room for; coalesces wake-ups that arrive meanwhile. */
  wake(): void {
    if (!this.#running) return
    if (this.#draining) {
      this.#wakeRequested = true
      return
    }
    // Marked before #drain starts: it starts handlers synchronously, and their wake() must find it.
    let resolveDrained!: () => void
    this.#draining = new Promise<void>((resolve) => (resolveDrained = resolve))
    void this.#drain().finally(() => {
      this.#draining = undefined
      resolveDrained()
      if (this.#wakeRequested) {
        this.#wakeRequested = false
        this.wake()
      }
    })
  }

  async #drain(): Promise<void> {
    while (this.#running && this.#definitions.size > 0) {
      this.#startReady()
      const room = this.#claimRoom()
      if (room <= 0) return
      let jobs: Job[]
      const claimedAt = performance.now()
      try {
        jobs = await this.#claim(room)
      } catch (error) {
        this.#log.warn({ err: error }, 'claiming jobs failed')
        return
      }
      for (const job of jobs) this.#ready.push({ job, claimedAt })
      // Stopped while the claim was on its way: stop() hands these back.
      if (!this.#running) return
      this.#startReady()
      // Fewer than asked for: the queue is empty for now, a NOTIFY or the poll brings more.
      if (jobs.length < room) return
    }
  }

  /**
   * How many jobs to claim now. Free slots, plus, while jobs finish quickly, as many as finished
   * in the last CLAIM_AHEAD_WINDOW_MS (at most `concurrency`): those wait claimed, so a slot that
   * frees up starts its next job at once instead of after a claim's round trip. Slow jobs finish
   * rarely, so their queue is barely claimed ahead and stays free for other workers.
   */
  #claimRoom(): number {
    const now = performance.now()
    while (this.#finishedAt.length > 0 && now - this.#finishedAt[0]! > CLAIM_AHEAD_WINDOW_MS) this.#finishedAt.shift()
    const ahead = Math.min(this.#concurrency, this.#finishedAt.length)
    // Claim again once half of what was claimed ahead has started, so claims stay large.
    if (this.#ready.length > ahead / 2) return 0
    return this.#concurrency + ahead - this.#inFlight.size - this.#ready.length
  }

  /** Starts claimed jobs in the free slots; one that waited too long for a slot goes back to the queue. */
  #startReady(): void {
    const now = performance.now()
    while (this.#inFlight.size < this.#concurrency && this.#ready.length > 0) {
      const { job, claimedAt } = this.#ready.shift()!
      // The lease (the job type's own) was counted from before the claim was sent, so it has at least this much left.
      const maxWait = Math.min(MAX_READY_WAIT_MS, this.#leaseMsOf(job.name) / 3)
      if (now - claimedAt > maxWait) {
        this.#handBack(job)
        continue
      }
      // Declared before the handler runs: it may give its slot back at once.
      let place: Linked<Promise<void>> | undefined
      let released = false
      const run = this.#run(job, () => {
        if (released || this.#released.size >= this.#concurrency) return
        released = true
        if (place) {
          this.#inFlight.remove(place)
          place = this.#released.add(place.value)
        }
        this.wake()
      }).finally(() => {
        this.#finishedAt.push(performance.now())
        if (this.#finishedAt.length > this.#concurrency) this.#finishedAt.shift()
        place?.set?.remove(place)
        this.wake()
      })
      place = (released ? this.#released : this.#inFlight).add(run)
    }
  }

  /** A job type's lease: its own, or the default for a type this runner does not run. */
  #leaseMsOf(name: string): number {
    return this.#definitions.get(name)?.leaseMs ?? DEFAULT_LEASE_MS
  }

  /**
   * The lease each job type's claim takes, in seconds by name: its own, not the longest of all
   * (a claimed delivery of a dead instance would wait out an export's two minutes before its renewal
   * first shortened it). Written once per set of definitions, not per claim.
   */
  #claimLeases(): string {
    this.#leases ??= JSON.stringify(Object.fromEntries([...this.#definitions].map(([name, d]) => [name, d.leaseMs / 1000])))
    return this.#leases
  }

  async #claim(limit: number): Promise<Job[]> {
    return claimJobs(this.#store.db, [...this.#definitions.keys()], limit, randomUUID(), this.#claimLeases())
  }

  /**
   * Runs one job's handler; its slot is free again as soon as the handler is done, while the
   * outcome joins the next batch of outcomes written (it is fenced by the owner token either way).
   */
  async #run(job: Job, releaseSlot: () => void): Promise<void> {
    const definition = this.#definitions.get(job.name)
    if (!definition) return
    // Most jobs never log: the child logger is made on first use.
    let child: Logger | undefined
    const log = () => (child ??= this.#log.child({ job: job.id, name: job.name, attempt: job.attempts }))
    if (job.attempts > definition.maxAttempts) {
      this.#record(job, 'failed', 'lease expired on the final attempt', undefined, log)
      return
    }
    const controller = new AbortController()
    // Renew the lease while the handler works, so long jobs are not taken over.
    const renew = setInterval(
      () => {
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
      },
      Math.max(50, definition.leaseMs / 3),
    )
    let completed = false
    try {
      await definition.handler(
        job.payload,
        new JobCall(job, controller.signal, log, releaseSlot, () => {
          completed = true
        }),
      )
      if (!completed) this.#record(job, 'succeeded', null, undefined, log)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (job.attempts >= definition.maxAttempts) {
        log().error({ err: error }, 'job failed for good')
        this.#record(job, 'failed', message, undefined, log)
      } else {
        const delay = definition.backoffMs(job.attempts)
        log().warn({ err: error, retryInMs: delay }, 'job failed; will retry')
        this.#record(job, 'queued', message, new Date(Date.now() + delay), log)
      }
    } finally {
      clearInterval(renew)
    }
  }

  /** Gives a job claimed ahead back to the queue untouched, its attempt not counted. */
  #handBack(job: Job): void {
    this.#record(job, 'released', job.last_error, undefined, () => this.#log)
  }

  /**
   * Writes an outcome, only if this claim still owns the job. One that cannot be written
   * (database away) is left to the lease: the job runs again.
   */
  #record(job: Job, state: Outcome['state'], error: string | null, runAt: Date | undefined, log: () => Logger): void {
    const finished = state === 'succeeded' || state === 'failed'
    const recording = this.#writeOutcome({
      id: job.id,
      owner: job.lease_owner!,
      state,
      error,
      run_at: runAt?.toISOString() ?? null,
      finished_at: finished ? new Date().toISOString() : null,
    }).then(
      (recorded) => {
        if (!recorded) log().warn('lease was lost before the outcome was recorded')
      },
      (failure: unknown) => log().warn({ err: failure }, 'could not record job outcome; it will run again after its lease'),
    )
    const place = this.#recording.add(recording)
    void recording.finally(() => this.#recording.remove(place))
  }

  /** Outcomes of jobs that finish together are written by one statement; each is fenced by its owner token. */
  readonly #writeOutcome = batched<Outcome, boolean>(async (outcomes) => {
    const rows = await writeOutcomes(this.#store.db, JSON.stringify(outcomes))
    const recorded = new Set(rows.map((r) => `${r.id} ${r.owner}`))
    return outcomes.map((o) => recorded.has(`${o.id} ${o.owner}`))
  })
}

/**
 * A statement of the job queue or of a job's work, planned by PostgreSQL on every call. Not a
 * prepared statement (prepared.ts): after five runs PostgreSQL may keep a generic plan chosen from
 * the tables as they were then, and these tables grow by thousands of rows a minute; a claim's
 * generic plan (its LIMIT a parameter, its ids unknown) made a backlog's delivery rate fall round
 * after round. A custom plan each time costs a fraction of a millisecond per batch.
 */
export function plannedEachTime<A extends unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R> | RawBuilder<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  return async (db, ...args) => {
    const query = build(db, ...args)
    return 'isRawBuilder' in query ? (await query.execute(db)).rows : (await db.executeQuery(query.compile())).rows
  }
}

/**
 * A claim: jobs whose claimant died (lease run out) first, then queued ones by due time; each
 * branch reads its own index in order, so a long backlog costs a claim nothing extra.
 */
const claimJobs = plannedEachTime(
  (db, names: string[], limit: number, owner: string, leaseSeconds: string) => sql<Job>`
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
    lease_until = now() + make_interval(secs => (${leaseSeconds}::jsonb ->> name)::float8)
  where id in (select id from expired union all select id from queued limit ${limit})
  returning *`,
)

/**
 * Outcomes of jobs that finish together, written by one statement; each is fenced by its owner
 * token. The ids are matched as an array as well: the planner cannot
 * see into the JSON, and joining on it alone lets it scan the whole table; `= any(array)` finds
 * the rows through the primary key.
 */
const writeOutcomes = plannedEachTime(
  (db, outcomes: string) => sql<{ id: string; owner: string }>`
  with v as (
    select * from jsonb_to_recordset(${outcomes}::jsonb)
      as v(id text, owner text, state text, error text, run_at timestamptz, finished_at timestamptz)
  )
  update jobs as j set state = case when v.state = 'released' then 'queued' else v.state end,
    attempts = j.attempts - case when v.state = 'released' then 1 else 0 end,
    run_at = coalesce(v.run_at, j.run_at), finished_at = v.finished_at, last_error = v.error, lease_owner = null, lease_until = null
  from v
  where j.id = any(array(select id from v)) and j.id = v.id and j.lease_owner = v.owner
  returning j.id, v.owner`,
)
