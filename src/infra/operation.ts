import type {} from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's stable, dotted name (`public.pricing`, `agent.chat`, `oauth.token`): what the
     * access log, metrics and the audit log call it, whatever its path or method.
     */
    operation?: string
  }
}
