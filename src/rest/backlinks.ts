import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listSiteBacklinks } from '../domain/sites/backlinks.ts'
import { DateTime } from '../domain/sites/views.ts'
import { envelope, ListEnvelope, ListQuery, pageOf } from './http.ts'
import { params, SiteId } from './schemas/content.ts'
import { requireSite } from './sites.ts'

const Backlink = Type.Object(
  {
    id: Type.String(),
    site_id: SiteId,
    source: Type.String({ format: 'uri' }),
    target: Type.String({ format: 'uri' }),
    verified_at: DateTime,
    created_at: DateTime,
  },
  { additionalProperties: false },
)

/** GET /v1/sites/{id}/backlinks: pages that link to the site, each proven by a verified Webmention, newest first. */
export default async function backlinkRoutes(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/sites/:id/backlinks',
    {
      config: { operation: 'sites.backlinks', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the verified backlinks of a site',
        tags: ['sites'],
        params: params('id', SiteId),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Backlink, 'Backlinks of the site, newest first') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      const paging = pageOf(request.query)
      const { items, total } = await listSiteBacklinks(app.db, site.id, paging)
      return envelope(items, total, paging.page, paging.perPage)
    },
  )
}
