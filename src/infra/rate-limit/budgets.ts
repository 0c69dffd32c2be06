import ipaddr from 'ipaddr.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'

/**
 * The budget holder of a client address: an IPv4 address as such (also when IPv4-mapped), an IPv6
 * address by its /64, which one subscriber usually holds whole.
 */
export function clientKey(ip: string): string {
  try {
    const address = ipaddr.process(ip)
    return address.kind() === 'ipv6'
      ? `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`
      : address.toString()
  } catch {
    return ip
  }
}

/** Key functions: who a budget belongs to. */
const byAddress = (request: FastifyRequest) => request.ip
const byNetwork = (request: FastifyRequest) => clientKey(request.ip)
/** The token endpoint counts per client, once the form is parsed; per address without a client_id. */
const byClient = (request: FastifyRequest) => {
  const clientId = (request.body as { client_id?: unknown } | undefined)?.client_id
  return typeof clientId === 'string' && clientId ? `client:${clientId}` : `ip:${request.ip}`
}
/** Chat turns count per session, once the capability is proven (the route counts them itself). */
const bySession = (request: FastifyRequest) => (request.body as { session_id: string }).session_id

export interface RateLimitRule {
  perMinute: number
  key: (request: FastifyRequest) => string
  /** Counted after the body is parsed (the key reads it); else on arrival. */
  afterBody?: true
}

/**
 * Every rate limit of the service (docs/decisions.md), per minute before RATE_LIMIT_FACTOR. The
 * routes that name one entry share its budget per key: code entry and code decision, the two audits,
 * the public reads. /api/ready has none: probes come often from few addresses.
 */
export const RATE_LIMITS = {
  /** Pricing and the Core Web Vitals reads. */
  public: { perMinute: 60, key: byAddress },
  /** seo-check and mcs-check: each one fetches and renders other people's sites. */
  audits: { perMinute: 10, key: byAddress },
  /** Everything under /api/agent, preflights included, counted before anything else. */
  'agent.requests': { perMinute: 120, key: byNetwork },
  'agent.turns': { perMinute: 20, key: bySession },
  'oauth.token': { perMinute: 60, key: byClient, afterBody: true },
  'oauth.revoke': { perMinute: 60, key: byAddress },
  'oauth.register': { perMinute: 30, key: byAddress },
  'oauth.authorize': { perMinute: 60, key: byAddress },
  'agent.identity.register': { perMinute: 30, key: byAddress },
  'agent.identity.claim': { perMinute: 30, key: byAddress },
  /** User-code entries on the verification page (entry and decision). */
  'agent.identity.verify': { perMinute: 10, key: byAddress },
  'signin.request': { perMinute: 10, key: byAddress },
  /** Sign-in code entries. */
  'signin.code': { perMinute: 20, key: byAddress },
  mcp: { perMinute: 600, key: byAddress },
  /** Posts of a hosted site's contact form, per visitor address. */
  'sites.contact_form': { perMinute: 10, key: byAddress },
  'sites.webmention': { perMinute: 30, key: byAddress },
} as const satisfies Record<string, RateLimitRule>

export type RateLimitName = keyof typeof RATE_LIMITS

/** A limit of the table scaled by RATE_LIMIT_FACTOR. */
export function scaledLimit(config: Config, name: RateLimitName): number {
  return Math.max(1, Math.round(RATE_LIMITS[name].perMinute * config.RATE_LIMIT_FACTOR))
}

/** Route config counting the route's requests against the named budget of the table. */
export function routeLimit(config: Config, name: RateLimitName) {
  const rule: RateLimitRule = RATE_LIMITS[name]
  return {
    rateLimit: {
      max: scaledLimit(config, name),
      timeWindow: 60_000,
      groupId: name,
      keyGenerator: rule.key,
      ...(rule.afterBody ? { hook: 'preHandler' as const } : {}),
    },
  }
}

/** A limiter the caller runs itself, for budgets counted at a moment of its choosing (a whole scope, or after a check). */
export function createLimiter(app: FastifyInstance, name: RateLimitName) {
  const rule: RateLimitRule = RATE_LIMITS[name]
  return app.createRateLimit({
    max: scaledLimit(app.config, name),
    timeWindow: 60_000,
    keyGenerator: (request) => `${name}:${rule.key(request)}`,
  })
}
