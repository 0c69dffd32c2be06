import { createHash } from 'node:crypto'
import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import { Problem } from '../schemas.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { loadPricing, Pricing } from '../domain/accounts/plans.ts'

export default async function pricingRoute(app: FastifyInstance) {
  // The list changes only with a deploy: serialise it once and let caches revalidate by ETag.
  const body = JSON.stringify(loadPricing())
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

  app.get(
    '/pricing',
    {
      config: { operation: 'public.pricing', ...routeLimit(app.config, 'public') },
      schema: {
        summary: 'Plans and add-ons',
        tags: ['public'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Pricing, 304: Type.Null({ description: 'Not modified' }), 400: Problem, 429: Problem },
      },
    },
    // Synchronous: nothing to wait for, so no promise to settle per request.
    (request, reply) => {
      reply.header('cache-control', 'public, max-age=300').header('etag', etag)
      if (request.headers['if-none-match'] === etag) reply.code(304).send()
      else reply.type('application/json; charset=utf-8').send(body)
    },
  )
}
