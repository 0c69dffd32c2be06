import { mkdirSync } from 'node:fs'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import { lockDataDir } from './embedded-lock.ts'
import { queryOn, runDirect, type DirectQuery } from './prepared.ts'
import { LinkedSet } from './linked-set.ts'
import { poolTypes } from './pg-timestamps.ts'
import type { Database } from './tables.ts'

export type Db = Kysely<Database>
export type Unlisten = () => Promise<void>

/** The database handle shared by every room, whichever driver sits below it. */
export interface DataStore {
  readonly db: Db
  readonly kind: 'embedded' | 'postgres'
  /** Subscribes to NOTIFY on a channel; survives reconnects on a real server. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>
  /** False while the database is known not to answer (queries then fail at once with a 503). */
  readonly available: boolean
  /** Answers true when a trivial query completes within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean>
  close(): Promise<void>
}

export interface DataStoreOptions {
  databaseUrl: string | undefined
  dataDir: string
  log: Logger
  poolSize?: number
  /**
   * A dump of an embedded data directory (PGlite's dumpDataDir) to start a memory:// database
   * from, instead of initialising an empty one: tests start from one migrated copy.
   */
  embeddedTemplate?: Blob | undefined
}

export async function openDataStore(options: DataStoreOptions): Promise<DataStore> {
  const url = options.databaseUrl
  return !url || url === 'memory://'
    ? openEmbedded(url ? undefined : options.dataDir, options.log, options.embeddedTemplate)
    : openPostgres(url, options)
}

async function ping(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  const query = sql`select 1`.execute(db).then(
    () => true,
    () => false,
  )
  try {
    return await Promise.race([query, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A memory:// database keeps its files in memory already, so 128 MB of shared buffers (the
 * default) would only copy what is there, and setting them up was half of opening one (about
 * 0.5 s of 1.1 s; a test file opens one or more).
 */
const IN_MEMORY_START = ['-c', 'shared_buffers=16MB']

async function openEmbedded(dataDir: string | undefined, log: Logger, template?: Blob): Promise<DataStore> {
  const { PGlite } = await import('@electric-sql/pglite')
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  // One process at a time on the files of a data directory (embedded-lock.ts).
  const unlock = dataDir ? lockDataDir(dataDir) : () => {}
  let pglite: InstanceType<typeof PGlite>
  try {
    pglite = dataDir
      ? await PGlite.create(`${dataDir}/pgdata`)
      : await PGlite.create({ ...(template && { loadDataDir: template }), startParams: [...PGlite.defaultStartParams, ...IN_MEMORY_START] })
  } catch (error) {
    unlock()
    throw error
  }
  log.info({ dataDir: dataDir ?? 'memory' }, 'embedded database opened')
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  let closed = false
  return {
    db,
    kind: 'embedded',
    // In-process: it cannot go silent the way a server behind a network can.
    available: true,
    async listen(channel, onNotify) {
      const unsubscribe = await pglite.listen(channel, onNotify)
      // A closed database has no listeners left, and UNLISTEN on it would only reject.
      return async () => {
        if (!closed) await unsubscribe()
      }
    },
    ping: (timeoutMs) => ping(db, timeoutMs),
    async close() {
      closed = true
      try {
        await db.destroy()
      } finally {
        unlock()
      }
    },
  }
}

/**
 * How often a real server is asked `select 1` on the watch connection, and how long the answer,
 * or opening that connection (at start and after a failure), may take: a server that goes silent
 * while the watch connects is found as soon as one that goes silent while it asks.
 */
const WATCH_INTERVAL_MS = 250
const WATCH_TIMEOUT_MS = 1250
/** Longest a statement of the pool may run before the server cancels it. */
const STATEMENT_TIMEOUT_MS = 15_000

/** Raised instead of waiting when the database is known to be away; classified as a 503. */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DB_UNAVAILABLE'
  constructor() {
    super('The database is not answering')
    this.name = 'DatabaseUnavailableError'
  }
}

/**
 * The shared "is the database answering" state of one process. A dedicated connection asks
 * `select 1` every quarter second; an answer missing for 1.25 s marks the database away, unless
 * some other query was answered meanwhile (a busy host, not a silent database). While
 * away, new queries fail at once instead of queueing on a silent network, and every query still
 * waiting is released with an error (its connection discarded, since it may never answer). The
 * first answer marks it back.
 */
class DatabaseWatch {
  #available = true
  #lastAnswer = performance.now()
  readonly #waiting = new LinkedSet<(error: Error) => void>()
  readonly #log: Logger

  constructor(log: Logger) {
    this.#log = log
  }

  get available(): boolean {
    return this.#available
  }

  /** True when any query or connect of this process got an answer within the last `ms`. */
  answeredWithin(ms: number): boolean {
    return performance.now() - this.#lastAnswer < ms
  }

  markAway(reason: unknown): void {
    if (!this.#available) return
    this.#available = false
    this.#log.warn({ err: reason, waiting: this.#waiting.size }, 'database is not answering: failing database requests fast until it does')
    for (const fail of this.#waiting.values()) fail(new DatabaseUnavailableError())
  }

  markBack(): void {
    this.#lastAnswer = performance.now()
    if (this.#available) return
    this.#available = true
    this.#log.info('database answers again')
  }

  /**
   * Settles with `work`, or rejects at once when the database is away or goes away meanwhile;
   * `abandoned` runs for work let go that way, and a late result of it is handed to `late`.
   */
  guard<T>(start: () => Promise<T>, abandoned: () => void, late?: (value: T) => void): Promise<T> {
    if (!this.#available) return Promise.reject(new DatabaseUnavailableError())
    return new Promise<T>((resolve, reject) => {
      let settled = false
      const waiting = this.#waiting.add((error: Error) => {
        if (settled) return
        settled = true
        this.#waiting.remove(waiting)
        abandoned()
        reject(error)
      })
      start().then(
        (value) => {
          this.#lastAnswer = performance.now()
          if (settled) return late?.(value)
          settled = true
          this.#waiting.remove(waiting)
          resolve(value)
        },
        (error: unknown) => {
          // A refusal from the server (a constraint, a syntax error) is an answer too.
          if ((error as { code?: unknown })?.code && !isDatabaseUnavailable(error)) this.#lastAnswer = performance.now()
          if (settled) return
          settled = true
          this.#waiting.remove(waiting)
          reject(error)
        },
      )
    })
  }
}

/** Tears a pg client down without waiting for a server that may never answer. */
function discardClient(client: pg.Client): void {
  ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
  void client.end().catch(() => {})
}

/**
 * `work`, or a DatabaseUnavailableError after `ms`. The verdict waits for one pass over pending
 * I/O (setImmediate): when the whole process was stalled (a busy host), timers run before the
 * socket reads of the same loop turn, and an answer that arrived in time would be missed.
 */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new DatabaseUnavailableError())), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** Pings the server on its own connection (never a pool slot, so a busy pool is not mistaken for an outage). */
function startWatching(url: string, watch: DatabaseWatch) {
  let client: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const probe = async () => {
    if (!client) {
      const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: WATCH_TIMEOUT_MS, keepAlive: true })
      next.on('error', () => {
        if (client === next) client = undefined
        discardClient(next)
      })
      client = next
      await withTimeout(next.connect(), WATCH_TIMEOUT_MS)
    }
    await withTimeout(client.query('select 1'), WATCH_TIMEOUT_MS)
  }
  const tick = async () => {
    try {
      await probe()
      watch.markBack()
    } catch (error) {
      if (client) discardClient(client)
      client = undefined
      if (!stopped && !watch.answeredWithin(WATCH_TIMEOUT_MS)) watch.markAway(error)
    }
    if (!stopped) timer = setTimeout(() => void tick(), WATCH_INTERVAL_MS).unref()
  }
  timer = setTimeout(() => void tick(), WATCH_INTERVAL_MS).unref()
  return () => {
    stopped = true
    clearTimeout(timer)
    if (client) discardClient(client)
  }
}

/**
 * The pool as Kysely sees it, with every connect and query guarded by the watch, and hot reads
 * prepared (prepared.ts). A connection whose query was let go, or that holds a prepared statement
 * gone stale, is destroyed on release rather than handed to the next request.
 */
function guardedPool(pool: pg.Pool, watch: DatabaseWatch) {
  const wrap = (client: pg.PoolClient) => {
    let broken = false
    const breaks = () => {
      broken = true
    }
    return {
      processID: (client as unknown as { processID?: number }).processID,
      query: (text: string, values: unknown[]) => watch.guard(() => queryOn(client, text, values, breaks), breaks),
      release: (discard?: boolean) => client.release(discard || broken ? true : undefined),
    }
  }
  return {
    connect: async () =>
      wrap(
        await watch.guard(
          () => pool.connect(),
          () => {},
          (late) => late.release(true),
        ),
      ),
    end: () => pool.end(),
  }
}

/**
 * One statement on a pooled connection under one guard of the watch: the hot reads' path
 * (`preparedQuery`) past Kysely's driver. A connection whose statement was let go, or that holds
 * a prepared statement gone stale, is destroyed on release, as in `guardedPool`.
 */
function directQuery(pool: pg.Pool, watch: DatabaseWatch): DirectQuery {
  return (text, values) => {
    let abandoned = false
    return watch.guard(
      async () => {
        const client = await pool.connect()
        let broken = abandoned
        try {
          if (broken) throw new DatabaseUnavailableError()
          return await queryOn(client, text, values, () => {
            broken = true
          })
        } finally {
          client.release(broken || abandoned ? true : undefined)
        }
      },
      () => {
        abandoned = true
      },
    )
  }
}

async function openPostgres(url: string, options: DataStoreOptions): Promise<DataStore> {
  const { log } = options
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A new connection may wait this long: 3 s expired at start on a loaded 2-core machine, and the
    // process exited. In an outage requests are failed fast by the watch below, not by this.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // A connection whose peer vanished without a word is found by the kernel, not by the next query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: poolTypes,
  })
  // A client that loses its server emits 'error': idle ones through the pool, checked-out ones on
  // themselves. Either would crash the process without a listener; the failed query rejects anyway.
  pool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'))
  pool.on('connect', (client) => {
    client.on('error', (error) => log.warn({ err: error }, 'database connection lost'))
    // The watch fails requests fast in an outage; the server still cancels one statement that
    // runs too long (a lock wait, a runaway plan). Not pg's query_timeout: its timer per query
    // kept every query's rows reachable past their request, so they survived young-generation
    // collections (8.8 MB copied per scavenge instead of 0.14 MB, pauses of 11 ms instead of
    // 0.6 ms, a quarter fewer queries a second in a bare pg loop of the site list). A SET on each
    // new connection rather than a startup parameter, which poolers such as PgBouncer refuse.
    // Every statement of the service is a short one on an index: parallel workers (a process each
    // to start) and JIT compilation cost more than they save at that size. The 90 days' statistics
    // took 60–150 ms with them on a machine slow to start workers, 5–9 ms without.
    client.query(`set statement_timeout = ${STATEMENT_TIMEOUT_MS}; set max_parallel_workers_per_gather = 0; set jit = off`).catch(() => {})
  })
  const watch = new DatabaseWatch(log)
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardedPool(pool, watch) as never }) })
  runDirect(db, directQuery(pool, watch))
  const stopWatching = startWatching(url, watch)
  const listeners: Array<{ stop: () => Promise<void> }> = []

  return {
    db,
    kind: 'postgres',
    get available() {
      return watch.available
    },
    async listen(channel, onNotify) {
      const listener = startListener(url, channel, onNotify, log)
      listeners.push(listener)
      return listener.stop
    },
    ping: (timeoutMs) => ping(db, timeoutMs),
    async close() {
      stopWatching()
      await Promise.all(listeners.map((l) => l.stop()))
      await db.destroy()
    },
  }
}

/** One dedicated connection per channel, reconnected with backoff when the server goes away. */
function startListener(url: string, channel: string, onNotify: (payload: string) => void, log: Logger) {
  let client: pg.Client | undefined
  let stopped = false
  let retryTimer: NodeJS.Timeout | undefined
  let delay = 250

  const connect = async () => {
    if (stopped) return
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '')
    })
    next.on('error', (error) => {
      log.warn({ err: error, channel }, 'listen connection lost')
      void next.end().catch(() => {})
      schedule()
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      if (stopped) {
        await next.end()
        return
      }
      client = next
      delay = 250
      // Wake the subscriber once after a reconnect: notifications sent while away were lost.
      onNotify('')
    } catch (error) {
      log.warn({ err: error, channel }, 'listen connection failed')
      void next.end().catch(() => {})
      schedule()
    }
  }
  const schedule = () => {
    client = undefined
    if (stopped || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void connect()
    }, delay)
    delay = Math.min(delay * 2, 10_000)
  }
  void connect()

  return {
    async stop() {
      stopped = true
      clearTimeout(retryTimer)
      await client?.end().catch(() => {})
    },
  }
}

// 57014: a statement the server cancelled (statement_timeout): it could not answer in time.
const unavailableCodes = new Set([
  '57014',
  'DB_UNAVAILABLE',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
])

/** True for errors that mean "the database cannot be reached right now", as opposed to a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && unavailableCodes.has(code)) return true
  if (typeof message !== 'string') return false
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection is closed|Client has encountered a connection error|PGlite is closed/i.test(
    message,
  )
}
