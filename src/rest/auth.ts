import type { FastifyContextConfig, FastifyInstance, onRequestAsyncHookHandler } from 'fastify'

/** What a /v1 route declares in `config`: its operation name, the scope it needs and whether it writes. */
export interface RestRouteConfig {
  operation?: string
  scope?: string
  access?: 'read' | 'write'
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
    etag?: readonly number[]
    location?: readonly number[]
  }
}

/**
 * /v1's onRequest hook: the account frame finds who is calling and charges the call (the
 * rate-limit headers are set on every answer to an identified account), then checks the route's
 * scope and access. Runs before the body is read or validated, so an anonymous caller learns
 * nothing about a route's input rules.
 */
export function authenticate(app: FastifyInstance, audience: string): onRequestAsyncHookHandler {
  return async function restAuthenticate(request, reply) {
    const principal = await app.frame.authenticate(request, reply, { audience })
    request.principal = principal
    const config = request.routeOptions.config as RestRouteConfig
    app.frame.authorize(principal, { scope: config.scope, access: config.access })
  }
}
