import { mkdirSync } from 'node:fs'
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import type { Database } from './tables.ts'

export type Db = Kysely<Database>
export type Unlisten = () => Promise<void>

/** The database handle shared by every room, whichever driver sits below it. */
export interface DataStore {
  readonly db: Db
  readonly kind: 'embedded' | 'postgres'
  /** Subscribes to NOTIFY on a channel; survives reconnects on a real server. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Unlisten>
  /** Answers true when a trivial query completes within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean>
  close(): Promise<void>
}

export interface DataStoreOptions {
  databaseUrl: string | undefined
  dataDir: string
  log: Logger
  poolSize?: number
}

export async function openDataStore(options: DataStoreOptions): Promise<DataStore> {
  const url = options.databaseUrl
  return !url || url === 'memory://' ? openEmbedded(url ? undefined : options.dataDir, options.log) : openPostgres(url, options)
}

async function ping(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  const query = sql`select 1`.execute(db).then(() => true, () => false)
  try {
    return await Promise.race([query, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function openEmbedded(dataDir: string | undefined, log: Logger): Promise<DataStore> {
  const { PGlite } = await import('@electric-sql/pglite')
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const pglite = await PGlite.create(dataDir ? `${dataDir}/pgdata` : undefined)
  log.info({ dataDir: dataDir ?? 'memory' }, 'embedded database opened')
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  return {
    db,
    kind: 'embedded',
    async listen(channel, onNotify) {
      const unsubscribe = await pglite.listen(channel, onNotify)
      return async () => unsubscribe()
    },
    ping: (timeoutMs) => ping(db, timeoutMs),
    async close() {
      await db.destroy()
    },
  }
}

async function openPostgres(url: string, options: DataStoreOptions): Promise<DataStore> {
  const { log } = options
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // A statement that hangs (a cut network) must not hold a request forever.
    query_timeout: 15_000,
  })
  // A client that loses its server emits 'error': idle ones through the pool, checked-out ones on
  // themselves. Either would crash the process without a listener; the failed query rejects anyway.
  pool.on('error', (error) => log.warn({ err: error }, 'idle database connection lost'))
  pool.on('connect', (client) => {
    client.on('error', (error) => log.warn({ err: error }, 'database connection lost'))
  })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const listeners: Array<{ stop: () => Promise<void> }> = []

  return {
    db,
    kind: 'postgres',
    async listen(channel, onNotify) {
      const listener = startListener(url, channel, onNotify, log)
      listeners.push(listener)
      return listener.stop
    },
    ping: (timeoutMs) => ping(db, timeoutMs),
    async close() {
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

const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300'])

/** True for errors that mean "the database cannot be reached right now", as opposed to a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && unavailableCodes.has(code)) return true
  if (typeof message !== 'string') return false
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection is closed|Client has encountered a connection error|PGlite is closed/i.test(message)
}
