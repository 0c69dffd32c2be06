import type { FastifyContextConfig, FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { ApiPrincipal } from '../frame/index.ts'
import type { Role } from '../domain/accounts/members.ts'

/** What a /v1 route declares in `config`: its operation name, the scope it needs, whether it writes, and where need be the member's role. */
export interface RestRouteConfig {
  operation?: string
  scope?: string
  access?: 'read' | 'write'
  /** The least role of the member; without it derived from the scope and access (src/frame/roles.ts). */
  role?: Role
  /** A right beyond the role (`billing`: owners, on any plan). */
  right?: 'billing'
  /** Statuses whose answer is an item with its ETag, where the default (GET/PATCH 200, 201) does not fit. */
  etag?: readonly number[]
  /** Statuses whose answer carries Location, where the default (201) does not fit. */
  location?: readonly number[]
  openapi?: FastifyContextConfig['openapi']
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: string
    scope?: string
    access?: 'read' | 'write'
    right?: 'billing'
    etag?: readonly number[]
    location?: readonly number[]
  }
}

/**
 * /v1's onRequest hook: the account frame finds who is calling and charges the call (the
 * rate-limit headers are set on every answer to an identified account), then checks the route's
 * scope, access and the member's role. Runs before the body is read or validated, so an anonymous caller learns
 * nothing about a route's input rules. A caller the frame knows in memory is let through in the
 * same turn, without a promise.
 */
export function authenticate(app: FastifyInstance, audience: string): onRequestHookHandler {
  const admit = (request: FastifyRequest, principal: ApiPrincipal) => {
    request.principal = principal
    const config = request.routeOptions.config as RestRouteConfig
    app.frame.authorize(principal, { scope: config.scope, access: config.access, role: config.role, right: config.right })
  }
  return function restAuthenticate(request, reply, done) {
    let found: ApiPrincipal | Promise<ApiPrincipal>
    try {
      found = app.frame.authenticate(request, reply, { audience })
      if (!(found instanceof Promise)) admit(request, found)
    } catch (error) {
      return done(error as Error)
    }
    if (!(found instanceof Promise)) return done()
    found.then((principal) => admit(request, principal)).then(() => done(), done)
  }
}
