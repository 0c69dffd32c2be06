import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { FastifyRateLimitStore } from '@fastify/rate-limit'

/** A route budget as `routeLimit()` (budgets.ts) writes it into the route's config. */
interface RouteBudget {
  max: number
  timeWindow: number
  groupId: string
  keyGenerator: (request: FastifyRequest) => string
  hook?: 'onRequest' | 'preHandler'
}

const BUDGET_KEYS = new Set(['max', 'timeWindow', 'groupId', 'keyGenerator', 'hook'])

function isRouteBudget(value: unknown): value is RouteBudget {
  if (typeof value !== 'object' || value === null) return false
  const budget = value as Partial<RouteBudget>
  return (
    Object.keys(budget).every((key) => BUDGET_KEYS.has(key)) &&
    Number.isInteger(budget.max) &&
    budget.max! >= 0 &&
    Number.isInteger(budget.timeWindow) &&
    budget.timeWindow! >= 0 &&
    typeof budget.groupId === 'string' &&
    typeof budget.keyGenerator === 'function' &&
    (budget.hook === undefined || budget.hook === 'onRequest' || budget.hook === 'preHandler')
  )
}

/** "retry in …" as @fastify/rate-limit words it (@lukeed/ms, long form), for the windows of a minute or less used here. */
function retryIn(seconds: number): string {
  if (seconds === 0) return '0 ms'
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`
  const minutes = Math.round(seconds / 60)
  return `${minutes} minute${minutes === 1 ? '' : 's'}`
}

type Done = (error?: Error) => void

/**
 * The hook counting a request against a route's budget, doing what @fastify/rate-limit's route
 * hook does (the headers, and on a refusal the 429 error with Retry-After; an unreachable store
 * lets the request pass with the whole budget shown) but synchronously when the store answers at
 * once (in process): the plugin's hook is an async function awaiting the key, the store and
 * itself, several promises per request on every limited route. Redis answers later; the hook then
 * continues when it does. The key is the budget's key of the request alone, where the plugin
 * appends the group: `store` is the group's own (grouped-store.ts), and a key read off the request
 * as it is (its address) is the same string on every request of a connection, which the
 * in-process store finds without hashing a new one.
 */
function budgetHook(store: FastifyRateLimitStore, budget: RouteBudget) {
  const { max, timeWindow, keyGenerator } = budget
  // Written as text once: a number would be converted on every response, twice (checked, then joined).
  const limit = String(max)
  return function countAgainstBudget(request: FastifyRequest, reply: FastifyReply, done: Done): void {
    let key: string
    try {
      key = keyGenerator(request)
    } catch (error) {
      return done(error as Error)
    }
    store.incr(
      key,
      (error, result) => {
        const current = error || !result ? 0 : result.current
        const ttlInSeconds = error || !result ? 0 : Math.ceil(result.ttl / 1000)
        reply.header('x-ratelimit-limit', limit)
        if (current <= max) {
          reply.header('x-ratelimit-remaining', max - current).header('x-ratelimit-reset', ttlInSeconds)
          return done()
        }
        reply.header('x-ratelimit-remaining', 0).header('x-ratelimit-reset', ttlInSeconds).header('retry-after', ttlInSeconds)
        done(Object.assign(new Error(`Rate limit exceeded, retry in ${retryIn(ttlInSeconds)}`), { statusCode: 429 }))
      },
      timeWindow,
      max,
    )
  }
}

/**
 * An onRoute hook, registered before @fastify/rate-limit's: a route whose config names a budget
 * written by `routeLimit()` gets the synchronous hook above, counting in the group's store of
 * `store` (the very store the plugin counts the group in), and its config no longer asks the
 * plugin for one. Any other rate-limit config is left to the plugin.
 */
export function routeBudgets(store: FastifyRateLimitStore) {
  return (routeOptions: RouteOptions): void => {
    const config = routeOptions.config as { rateLimit?: unknown } | undefined
    const budget = config?.rateLimit
    if (!isRouteBudget(budget)) return
    const hook = budget.hook ?? 'onRequest'
    const handler = budgetHook(store.child({ groupId: budget.groupId } as never), budget)
    const existing = routeOptions[hook] as unknown
    routeOptions[hook] = (
      Array.isArray(existing) ? [...existing, handler] : typeof existing === 'function' ? [existing, handler] : [handler]
    ) as never
    routeOptions.config = { ...config, rateLimit: false } as never
  }
}
