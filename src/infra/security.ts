import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import type { FastifyInstance, FastifyReply } from 'fastify'

/**
 * Security headers on every response, as helmet decides them. The policy has no per-request parts
 * (no nonces), so helmet runs once at start and the resulting headers are applied by one cheap
 * hook; @fastify/helmet would rebuild every helmet middleware on every request. A route that needs
 * another policy (a sign-in form that posts to a client's redirect URI) sets the header itself
 * with `contentSecurityPolicy(reply, …)`; a header set on the reply wins over these.
 */
export const helmetOptions: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: true,
    // A JSON API and server-rendered pages without inline scripts: nothing may frame them.
    directives: { 'frame-ancestors': ["'none'"] },
  },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
}

/** Runs helmet's middleware against a recording response and returns the headers it set. */
export function helmetHeaders(options: HelmetOptions = helmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error
  })
  return headers
}

/** Replaces the Content-Security-Policy of one response with helmet's defaults plus `directives`. */
export function contentSecurityPolicy(reply: FastifyReply, directives: Record<string, string[]>): FastifyReply {
  const csp = helmetHeaders({ contentSecurityPolicy: { useDefaults: true, directives: { 'frame-ancestors': ["'none'"], ...directives } } })[
    'content-security-policy'
  ]
  return reply.header('content-security-policy', csp)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The headers every response starts with, in order: its request id first, then the security headers. */
    responseHeaders(requestId: string): Record<string, string>
  }
}

/**
 * Every response starts with its request id (so logs and a client's report join up) and the
 * security headers, set by one synchronous hook; an answer made before routing (a published
 * site's page) takes the same headers from `app.responseHeaders`.
 */
async function security(app: FastifyInstance) {
  const headers = helmetHeaders()
  app.decorate('responseHeaders', (requestId: string) => ({ 'x-request-id': requestId, ...headers }))
  // The names and values listed once: `reply.headers()` would list the object's keys on every request.
  const names = Object.keys(headers)
  const values = names.map((name) => headers[name]!)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    for (let i = 0; i < names.length; i++) reply.header(names[i]!, values[i])
    done()
  })
}

export default fp(security, { name: 'security' })
