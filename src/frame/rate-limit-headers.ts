import type { FastifyReply } from 'fastify'
import { WINDOW_SECONDS, type Charge } from '../domain/accounts/quota.ts'

/** Whole seconds until the hour's budget resets, at least one (Retry-After). */
export function secondsUntilReset(charge: Charge, now = Date.now()): number {
  return Math.max(1, Math.ceil((charge.resetAt.getTime() - now) / 1000))
}

/**
 * The hourly budget on the wire, for any HTTP room: the X-RateLimit-* trio of INTERFACE.md 8
 * (Reset in seconds until the window ends) and the IETF draft's RateLimit-Policy and RateLimit
 * fields (draft-ietf-httpapi-ratelimit-headers: quota q over window w; remaining r, reset t).
 */
export function setRateLimitHeaders(reply: FastifyReply, charge: Charge, now = Date.now()): void {
  const remaining = Math.max(0, charge.limit - charge.used)
  const reset = Math.max(0, Math.ceil((charge.resetAt.getTime() - now) / 1000))
  reply.header('x-ratelimit-limit', String(charge.limit))
  reply.header('x-ratelimit-remaining', String(remaining))
  reply.header('x-ratelimit-reset', String(reset))
  reply.header('ratelimit-policy', `"hourly";q=${charge.limit};w=${WINDOW_SECONDS}`)
  reply.header('ratelimit', `"hourly";r=${remaining};t=${reset}`)
}
