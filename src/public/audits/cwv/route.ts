import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errors } from '../../../errors.ts'
import { requestedDomain } from '../domain.ts'
import { routeLimit } from '../../../infra/rate-limits.ts'
import { Problem } from '../../../schemas.ts'
import { createCruxClient, CruxUnavailableError, type CruxClient } from './crux.ts'
import { historyFieldData, lookupFieldData, nextDailyUpdate, type HistoryData, type LookupData } from './field-data.ts'
import { defineSnapshotJob, nextSnapshotAt, scheduleSnapshot, utcDay } from './job.ts'
import { reserveCruxQueries } from './limiter.ts'
import { CwvHistory, CwvLookup, CwvQuery, CwvTrack } from '../../../domain/web-vitals-schema.ts'
import { hasSnapshotOn, isTracked, listSnapshots, readCache, trackDomain, writeCache } from './store.ts'
import { ATTRIBUTION } from './metrics.ts'

type Cached<T> = T & { fetched_at: string }

export default async function cwvRoute(app: FastifyInstance) {
  const crux: CruxClient | undefined = app.config.CRUX_API_KEY ? createCruxClient(app.config.CRUX_API_URL, app.config.CRUX_API_KEY) : undefined
  if (crux) defineSnapshotJob(app, crux)
  // One CrUX round per domain and action at a time in this process; the rest wait for it.
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
      const action = request.query.action ?? 'lookup'
      const domain = requestedDomain(app.config, request.query.domain, 'domain')
      if (!crux) throw new errors.cwvUnavailable('Core Web Vitals are not available on this server: CRUX_API_KEY is not set')
      const origin = `https://${domain}`
      try {
        if (action === 'track') {
          const since = await trackDomain(app.db, domain)
          const now = new Date()
          let next: Date
          if (await hasSnapshotOn(app.db, domain, utcDay(now))) next = nextSnapshotAt(now)
          else {
            next = now
            await scheduleSnapshot(app.db, domain, now, 'now')
          }
          const snapshots = (await listSnapshots(app.db, domain)).length
          reply.header('cache-control', 'no-store')
          return { action: 'track' as const, domain, origin, attribution: ATTRIBUTION, tracked: true as const, tracked_since: since.toISOString(), next_snapshot_at: next.toISOString(), snapshots }
        }
        if (action === 'history') {
          const [data, tracked, snapshots] = await Promise.all([
            fieldData<HistoryData>(`history:${domain}`, () => historyFieldData(crux, domain)),
            isTracked(app.db, domain),
            listSnapshots(app.db, domain),
          ])
          reply.header('cache-control', 'no-store')
          return { action: 'history' as const, ...data.body, tracked, snapshots, cached: data.cached, expires_at: data.expires_at.toISOString() }
        }
        const data = await fieldData<LookupData>(`lookup:${domain}`, () => lookupFieldData(crux, domain))
        reply.header('cache-control', `public, max-age=${Math.max(0, Math.floor((data.expires_at.getTime() - Date.now()) / 1000))}`)
        return { action: 'lookup' as const, ...data.body, cached: data.cached, expires_at: data.expires_at.toISOString() }
      } catch (error) {
        if (error instanceof CruxUnavailableError) {
          reply.header('retry-after', String(error.retryAfterSeconds))
          throw new errors.cruxUnavailable(error.message)
        }
        throw error
      }
    },
  )
}
