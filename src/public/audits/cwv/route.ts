import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errors, withHeaders } from '../../../errors.ts'
import type { CwvAction, CwvAnswer } from '../../../domain/checks/public-checks.ts'
import { routeLimit } from '../../../infra/rate-limit/budgets.ts'
import { Problem } from '../../../schemas.ts'
import { createCruxClient, CruxUnavailableError, type CruxClient } from './crux.ts'
import { historyFieldData, lookupFieldData, nextDailyUpdate, type HistoryData, type LookupData } from './field-data.ts'
import { nextSnapshotAt, scheduleSnapshot, utcDay } from './job.ts'
import { reserveCruxQueries } from './limiter.ts'
import { CwvHistory, CwvLookup, CwvQuery, CwvTrack } from '../../../domain/checks/web-vitals-schema.ts'
import { hasSnapshotOn, isTracked, listSnapshots, readCache, trackDomain, writeCache } from './store.ts'
import { ATTRIBUTION } from './metrics.ts'

type Cached<T> = T & { fetched_at: string }

export type CoreWebVitals = (domain: string, action: CwvAction) => Promise<CwvAnswer>

/**
 * Core Web Vitals of a normalised domain from the Chrome UX Report: cached until CrUX's next
 * daily update, one round per domain and action at a time in this process, within the shared
 * daily query budget; `track` takes a snapshot every day from now on.
 */
export function coreWebVitals(app: FastifyInstance): CoreWebVitals {
  const crux: CruxClient | undefined = app.config.CRUX_API_KEY
    ? createCruxClient(app.config.CRUX_API_URL, app.config.CRUX_API_KEY)
    : undefined
  const inFlight = new Map<string, Promise<{ body: unknown; expires_at: Date; cached: boolean }>>()

  /** CrUX data from the cache until the next daily update, else two queries within the shared budget. */
  function fieldData<T>(key: string, query: () => Promise<T>) {
    let pending = inFlight.get(key) as Promise<{ body: Cached<T>; expires_at: Date; cached: boolean }> | undefined
    if (!pending) {
      pending = (async () => {
        const now = new Date()
        const hit = await readCache<Cached<T>>(app.db, key, now)
        if (hit) return { ...hit, cached: true }
        await reserveCruxQueries(app.db, 2)
        const body = { ...(await query()), fetched_at: now.toISOString() }
        const expires_at = nextDailyUpdate(now)
        await writeCache(app.db, key, body, expires_at)
        return { body, expires_at, cached: false }
      })().finally(() => inFlight.delete(key))
      inFlight.set(key, pending)
    }
    return pending
  }

  async function track(domain: string, origin: string) {
    const since = await trackDomain(app.db, domain)
    const now = new Date()
    let next: Date
    if (await hasSnapshotOn(app.db, domain, utcDay(now))) next = nextSnapshotAt(now)
    else {
      next = now
      await scheduleSnapshot(app.db, domain, now, 'now')
    }
    const snapshots = (await listSnapshots(app.db, domain)).length
    return {
      action: 'track' as const,
      domain,
      origin,
      attribution: ATTRIBUTION,
      tracked: true as const,
      tracked_since: since.toISOString(),
      next_snapshot_at: next.toISOString(),
      snapshots,
    }
  }

  async function history(client: CruxClient, domain: string) {
    const [data, tracked, snapshots] = await Promise.all([
      fieldData<HistoryData>(`history:${domain}`, () => historyFieldData(client, domain)),
      isTracked(app.db, domain),
      listSnapshots(app.db, domain),
    ])
    return { action: 'history' as const, ...data.body, tracked, snapshots, cached: data.cached, expires_at: data.expires_at.toISOString() }
  }

  async function lookup(client: CruxClient, domain: string) {
    const data = await fieldData<LookupData>(`lookup:${domain}`, () => lookupFieldData(client, domain))
    return { action: 'lookup' as const, ...data.body, cached: data.cached, expires_at: data.expires_at.toISOString() }
  }

  return async (domain, action) => {
    if (!crux) throw new errors.cwvUnavailable('Core Web Vitals are not available on this server: CRUX_API_KEY is not set')
    try {
      if (action === 'track') return await track(domain, `https://${domain}`)
      if (action === 'history') return await history(crux, domain)
      return await lookup(crux, domain)
    } catch (error) {
      if (error instanceof CruxUnavailableError)
        throw withHeaders(new errors.cruxUnavailable(error.message), { 'retry-after': String(error.retryAfterSeconds) })
      throw error
    }
  }
}

export default async function cwvRoute(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/cwv-tracker',
    {
      config: { operation: 'public.cwv', ...routeLimit(app.config, 'public') },
      schema: {
        summary: 'Core Web Vitals field data (Chrome UX Report, CC-BY-4.0)',
        description:
          'action=lookup (default): p75, distribution and rating of LCP, INP, CLS, FCP and TTFB for phone and desktop. ' +
          'action=history: the weekly CrUX series plus the daily snapshots stored since the domain was tracked. ' +
          'action=track: take a snapshot every day from now on. Not enough field data is a 200 with status insufficient_data.',
        tags: ['public'],
        querystring: CwvQuery,
        response: { 200: Type.Union([CwvLookup, CwvHistory, CwvTrack]), 400: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const answer = await app.publicChecks.coreWebVitals(request.query.domain, request.query.action ?? 'lookup')
      // Field data changes once a day: a lookup may be kept until then; history and tracking are the caller's own.
      const maxAge = answer.action === 'lookup' ? Math.max(0, Math.floor((Date.parse(answer.expires_at) - Date.now()) / 1000)) : undefined
      reply.header('cache-control', maxAge === undefined ? 'no-store' : `public, max-age=${maxAge}`)
      return answer
    },
  )
}
