import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

/**
 * Security headers on every response. The JSON API needs only the defaults; rooms that serve HTML
 * (sign-in pages, hosted sites) tighten or widen the policy on their own routes.
 */
async function security(app: FastifyInstance) {
  await app.register(helmet, {
    global: true,
    // A JSON API and server-rendered pages without inline scripts: nothing may be framed or sniffed.
    contentSecurityPolicy: {
      useDefaults: true,
      directives: { 'frame-ancestors': ["'none'"] },
    },
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
  })
}

export default fp(security, { name: 'security' })
