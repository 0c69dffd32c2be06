import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { oauthErrorHandler, unrouted } from './oauth-errors.ts'

/** The path families whose every answer, misses included, speaks RFC 6749. */
const OAUTH_PATHS = /^\/(?:oauth\/|agent\/identity(?:\/|$))/

/**
 * Records the methods of each /oauth/* and /agent/identity* route as the room registers them.
 * Call before the routes are registered; `answerUnrouted` uses what it saw.
 */
export function recordOAuthRoutes(app: FastifyInstance): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    if (!OAUTH_PATHS.test(route.url)) return
    const methods = allowed.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method)
    allowed.set(route.url, methods)
  })
  return allowed
}

/**
 * Every method a known path does not serve answers 405 with Allow, and any other path under
 * /oauth/ or /agent/identity/ 404, in the RFC 6749 shape rather than the site-wide problem+json.
 */
export async function answerUnrouted(app: FastifyInstance, allowed: ReadonlyMap<string, ReadonlySet<string>>) {
  const known = new Map([...allowed].map(([path, methods]) => [path, new Set(methods)]))
  await app.register(async (scope) => {
    scope.setErrorHandler(oauthErrorHandler)
    const answer = unrouted(known)
    // Answered in onRequest, before a body (of any media type) is read.
    const onRequest = async (request: FastifyRequest, reply: FastifyReply) => answer(request, reply)
    const shared = { schema: { hide: true }, config: { operation: 'oauth.unrouted' }, onRequest, handler: onRequest }
    for (const [url, methods] of known) {
      const missing = scope.supportedMethods.filter((method) => !methods.has(method))
      scope.route({ ...shared, method: missing, url })
    }
    scope.route({ ...shared, method: scope.supportedMethods, url: '/oauth/*' })
    scope.route({ ...shared, method: scope.supportedMethods, url: '/agent/identity/*' })
  })
}
