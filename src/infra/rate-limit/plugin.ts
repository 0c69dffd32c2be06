import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import { groupedStore } from './grouped-store.ts'
import { routeBudgets } from './route-hook.ts'

/** How often an outage of the Redis store is mentioned again while it lasts. */
export const OUTAGE_REMINDER_MS = 60_000

/**
 * Logs the changes of state of the Redis store, not every failed reconnect (ioredis tries again
 * every second or few): one warning when it stops answering, a reminder at most once every
 * `remindEveryMs` while it stays away, one line when it answers again. The reason is the error's
 * code or message; its stack says nothing about an unreachable server.
 */
export function logStoreState(redis: Redis, log: FastifyBaseLogger, remindEveryMs = OUTAGE_REMINDER_MS): void {
  let downSince: number | undefined
  let remindedAt = 0
  // The interval runs from the moment the last line was written, after the logger stamped it, so
  // no two lines' own timestamps stand closer than `remindEveryMs`.
  redis.on('error', (error: Error & { code?: string }) => {
    const now = Date.now()
    const reason = error.code ?? error.message
    if (downSince === undefined) {
      downSince = now
      log.warn({ reason }, 'rate-limit store unreachable: requests pass without a shared limit until it answers')
      remindedAt = Date.now()
    } else if (now - remindedAt >= remindEveryMs) {
      log.warn({ reason, downForSeconds: Math.round((now - downSince) / 1000) }, 'rate-limit store still unreachable')
      remindedAt = Date.now()
    }
  })
  redis.on('ready', () => {
    if (downSince === undefined) return
    log.info({ downForSeconds: Math.round((Date.now() - downSince) / 1000) }, 'rate-limit store answers again')
    downSince = undefined
  })
}

/**
 * Rate limiting for the routes that ask for it (`routeLimit()` of the table in budgets.ts, or
 * `createLimiter()`). In-process by default; shared through Redis when REDIS_URL is set, so
 * N instances enforce one budget. The routes of one `groupId` share one budget per client. If
 * Redis is away, requests pass rather than fail.
 */
async function rateLimiting(app: FastifyInstance, options: { config: Config }) {
  const { REDIS_URL } = options.config
  let redis: Redis | undefined
  if (REDIS_URL) {
    // While it is away a command fails at once (no queue waiting for a reconnect), and one that gets
    // no answer gives up after a second: the request then passes without a shared limit.
    const client = new Redis(REDIS_URL, {
      connectTimeout: 1000,
      commandTimeout: 1000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      lazyConnect: false,
    })
    logStoreState(client, app.log)
    // Serve with the store connected when it answers, so the first requests are counted too.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000)
      client.once('ready', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect())
    })
    redis = client
  }
  const Store = groupedStore(redis, 'wps-rl:')
  // The budgets of the table (`routeLimit()`) are counted by a synchronous hook of our own
  // (route-hook.ts) in the same group stores; the plugin counts the rest and `createLimiter()`'s.
  app.addHook('onRoute', routeBudgets(new Store({} as never)))
  await app.register(rateLimit, {
    global: false,
    store: Store,
    skipOnError: true,
  })
}

export default fp(rateLimiting, { name: 'rate-limit' })
