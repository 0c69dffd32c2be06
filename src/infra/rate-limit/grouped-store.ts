import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { Redis } from 'ioredis'

/** Distinct clients a group tracks in process before the least recent is forgotten. */
const CLIENTS_PER_GROUP = 20_000

/**
 * The store @fastify/rate-limit counts in: its own in-process or Redis store, except that all
 * routes naming one `groupId` count in one store. The plugin gives every route a store of its own,
 * so without this each route of a group (code entry and code decision, say) would have the whole
 * budget, and the group's limit would be multiplied by its number of routes.
 */
export function groupedStore(redis: Redis | undefined, namespace: string): FastifyRateLimitStoreCtor {
  const store = (prefix: string) => (redis ? new RedisStore(false, false, redis, prefix) : new LocalStore(false, false, CLIENTS_PER_GROUP))
  const base = store(namespace)
  const groups = new Map<string, FastifyRateLimitStore>()

  const groupStore = (groupId: string): FastifyRateLimitStore => {
    let group = groups.get(groupId)
    if (!group) groups.set(groupId, (group = store(`${namespace}group:${groupId}-`)))
    return group
  }

  return class GroupedStore implements FastifyRateLimitStore {
    incr(...args: Parameters<FastifyRateLimitStore['incr']>): void {
      base.incr(...args)
    }

    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const { groupId } = options as { groupId?: string }
      return groupId ? groupStore(groupId) : base.child(options)
    }
  }
}
