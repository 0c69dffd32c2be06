import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { PersistedQueryProvider } from 'mercurius'
import type { Db } from '../infra/db.ts'
import { scheduleDaily, type JobDefinition, type NamedJob } from '../infra/jobs.ts'

/**
 * Automatic persisted queries (DESIGN.md 13, the protocol of Apollo's APQ): a request with only
 * `extensions.persistedQuery {version: 1, sha256Hash}` runs the query stored under that hash, or
 * is answered PERSISTED_QUERY_NOT_FOUND; the client then sends query and hash together, the query
 * runs and is stored. Stored in the database, so every instance (and a CDN in front of GET) knows
 * a hash any of them learnt; the recent ones are kept in memory too.
 */

const MEMORY_ENTRIES = 1000
/** Queries longer than this run but are not kept. */
const MAX_STORED_LENGTH = 50_000
/** A stored query not asked for by hash for this long is dropped (a client simply stores it again). */
const KEEP_UNUSED_DAYS = 30
export const PERSISTED_PURGE_JOB = 'graphql.persisted-queries.purge'

interface PersistedBody {
  query?: string
  extensions?: { persistedQuery?: { version?: unknown; sha256Hash?: unknown } }
}

const persisted = (body: PersistedBody) => body.extensions?.persistedQuery

function remembered(limit: number) {
  const entries = new Map<string, string>()
  return {
    get(hash: string): string | undefined {
      const query = entries.get(hash)
      if (query !== undefined) {
        entries.delete(hash)
        entries.set(hash, query)
      }
      return query
    },
    set(hash: string, query: string): void {
      entries.delete(hash)
      entries.set(hash, query)
      if (entries.size > limit) entries.delete(entries.keys().next().value!)
    },
  }
}

export function persistedQueries(db: Db): PersistedQueryProvider {
  const memory = remembered(MEMORY_ENTRIES)
  return {
    isPersistedQuery: (body: PersistedBody) => !body.query && persisted(body) !== undefined,
    isPersistedQueryRetry: (body: PersistedBody) => Boolean(body.query) && persisted(body) !== undefined,
    getHash: (body: PersistedBody) => {
      const given = persisted(body)
      return given?.version === 1 && typeof given.sha256Hash === 'string' && /^[0-9a-f]{64}$/.test(given.sha256Hash)
        ? given.sha256Hash
        : false
    },
    async getQueryFromHash(hash: string) {
      const known = memory.get(hash)
      if (known !== undefined) return known
      const { rows } = await sql<{ query: string }>`
        update graphql_persisted_queries set used_at = now() where hash = ${hash} returning query`.execute(db)
      const query = rows[0]?.query
      if (query !== undefined) memory.set(hash, query)
      return query
    },
    getHashForQuery: (query: string) => createHash('sha256').update(query, 'utf8').digest('hex'),
    async saveQuery(hash: string, query: string) {
      if (query.length > MAX_STORED_LENGTH) return
      memory.set(hash, query)
      await sql`insert into graphql_persisted_queries (hash, query) values (${hash}, ${query}) on conflict (hash) do update set used_at = now()`.execute(
        db,
      )
    },
    notFoundError: 'PersistedQueryNotFound',
    notSupportedError: 'PersistedQueryNotSupported',
    mismatchError: 'The sha256Hash does not match the query',
  } as PersistedQueryProvider
}

/** One purge a day at 04:30 UTC. */
const scheduleNext = (app: FastifyInstance) => scheduleDaily(app.db, PERSISTED_PURGE_JOB, { hour: 4, minute: 30 })

/** The daily purge of persisted queries nobody has used for a while. */
export function persistedQueryPurgeJob(app: FastifyInstance): NamedJob {
  const definition: JobDefinition = {
    handler: async (_payload, { log }) => {
      await scheduleNext(app)
      const { numAffectedRows } =
        await sql`delete from graphql_persisted_queries where used_at < now() - make_interval(days => ${KEEP_UNUSED_DAYS})`.execute(app.db)
      log.info({ purged: Number(numAffectedRows ?? 0) }, 'unused persisted GraphQL queries dropped')
    },
  }
  return { name: PERSISTED_PURGE_JOB, definition, scheduleNext: () => scheduleNext(app) }
}
