import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { DateTime } from '../domain/sites/views.ts'
import type { Db } from '../infra/db.ts'
import { envelope, ListEnvelope, ListQuery, pageOf } from './http.ts'
import { params, SiteId } from './schemas/content.ts'
import { requireSite } from './sites.ts'
import type { Paging } from '../domain/paging.ts'

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

/** A site's verified backlinks (each proven by a Webmention), newest first. */
async function listSiteBacklinks(db: Db, siteId: string, page: Paging) {
  const base = db.selectFrom('site_backlinks').where('site_id', '=', siteId)
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  const items = rows.map((r) => ({
    id: r.id,
    site_id: r.site_id,
    source: r.source,
    target: r.target,
    verified_at: r.verified_at.toISOString(),
    created_at: r.created_at.toISOString(),
  }))
  return { items, total: Number(count.n) }
}

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
