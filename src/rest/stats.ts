import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { publicStats, siteStats, statsSpan, STATS_MAX_DAYS } from '../domain/stats/report.ts'
import { SiteStats } from '../domain/stats/schema.ts'
import { params, SiteId } from './schemas/content.ts'
import { requireSite } from './sites.ts'

/** GET /v1/sites/{id}/stats: visitors, page views and conversions of a site, counted without cookies. */
export default async function statsRoutes(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/sites/:id/stats',
    {
      config: { operation: 'sites.stats', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'Visitor statistics of a site',
        description: `Counted without cookies by the server that serves the site (DESIGN.md 18). \`from\` and \`to\` are UTC days, both included (default: the last 30 days); a span covers at most ${STATS_MAX_DAYS} days.`,
        tags: ['sites'],
        params: params('id', SiteId),
        querystring: Type.Object(
          {
            from: Type.Optional(Type.String({ description: 'First day, YYYY-MM-DD' })),
            to: Type.Optional(Type.String({ description: 'Last day, YYYY-MM-DD' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: SiteStats },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      const span = statsSpan(request.query)
      return publicStats(await siteStats(app.db, site.id, span.from, span.to))
    },
  )
}
