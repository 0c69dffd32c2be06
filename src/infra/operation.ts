import type { FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's stable, dotted name (`public.pricing`, `agent.chat`, `oauth.token`): what the
     * access log, metrics and the audit log call it, whatever its path or method.
     */
    operation?: string
  }
}

/** The operation of the route that answered, or undefined for a request no route matched. */
export function operationOf(request: FastifyRequest): string | undefined {
  return request.routeOptions.config.operation
}
