import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import { migrationsCurrent } from '../infra/migrate.ts'
import { errors } from '../errors.ts'
import { Problem } from '../schemas.ts'

const PING_TIMEOUT_MS = 1000

const Ready = Type.Object(
  {
    status: Type.Literal('ready'),
    database: Type.Union([Type.Literal('postgres'), Type.Literal('embedded')]),
  },
  { additionalProperties: false },
)

/**
 * Readiness for a load balancer: the database answers within a second and carries every migration
 * this code knows. Not rate limited (probes come often from few addresses); concurrent probes share
 * one database round trip instead.
 */
export default async function readyRoute(app: FastifyInstance) {
  let migrated = false
  let inFlight: Promise<boolean> | undefined

  const check = async () => {
    if (!(await app.store.ping(PING_TIMEOUT_MS))) return false
    // Once every known migration is applied it stays so for this process; check until then.
    if (!migrated) migrated = await migrationsCurrent(app.db).catch(() => false)
    return migrated
  }

  app.get(
    '/ready',
    {
      config: { operation: 'public.ready' },
      schema: {
        summary: 'Readiness probe',
        tags: ['public'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Ready, 503: Problem },
      },
    },
    async (_request, reply) => {
      inFlight ??= check().finally(() => {
        inFlight = undefined
      })
      const ready = await inFlight
      reply.header('cache-control', 'no-store')
      if (!ready) throw new errors.notReady('The database is unreachable or not migrated')
      return { status: 'ready' as const, database: app.store.kind }
    },
  )
}
