import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { groupedStore } from './rate-limit-groups.ts'

/**
 * Rate limiting for the routes that ask for it (`routeLimit()` of the table in rate-limits.ts, or
 * `createLimiter()`). In-process by default; shared through Redis when REDIS_URL is set, so
 * N instances enforce one budget. The routes of one `groupId` share one budget per client. If
 * Redis is away, requests pass rather than fail.
 */
async function rateLimiting(app: FastifyInstance, options: { config: Config }) {
  const { REDIS_URL } = options.config
  let redis: Redis | undefined
  if (REDIS_URL) {
    redis = new Redis(REDIS_URL, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableAutoPipelining: true, lazyConnect: false })
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store unreachable'))
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => redis?.disconnect())
    })
  }
  await app.register(rateLimit, {
    global: false,
    store: groupedStore(redis, 'wps-rl:'),
    skipOnError: true,
  })
}

export default fp(rateLimiting, { name: 'rate-limit' })
