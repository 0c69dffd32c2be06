import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { getAccountSite } from '../domain/sites.ts'
import { errors } from '../errors.ts'

const Backlink = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  source: Type.String({ format: 'uri' }),
  target: Type.String({ format: 'uri' }),
  verified_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
})

/**
 * GET /v1/sites/{id}/backlinks: pages that link to the site, each proven by a verified Webmention,
 * newest first, in the /v1 list envelope. Registered inside the /v1 frame (authentication, quota,
 * audit log); another account's site is 404.
 */
export default async function backlinkRoutes(app: FastifyInstance) {
  app.get(
    '/sites/:id/backlinks',
    {
      config: { operation: 'sites.backlinks', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the verified backlinks of a site',
        tags: ['sites'],
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        querystring: Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }), per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ data: Type.Array(Backlink), meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), per_page: Type.Integer() }) }),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const { page, per_page: perPage } = request.query as { page: number; per_page: number }
      const site = await getAccountSite(app.db, request.principal.accountId, id)
      if (!site) throw new errors.notFound('Site not found')
      const [rows, count] = await Promise.all([
        app.db.selectFrom('site_backlinks').selectAll().where('site_id', '=', site.id).orderBy('created_at', 'desc').orderBy('id').limit(perPage).offset((page - 1) * perPage).execute(),
        app.db.selectFrom('site_backlinks').select((eb) => eb.fn.countAll<string>().as('n')).where('site_id', '=', site.id).executeTakeFirstOrThrow(),
      ])
      return {
        data: rows.map((r) => ({ id: r.id, site_id: r.site_id, source: r.source, target: r.target, verified_at: r.verified_at.toISOString(), created_at: r.created_at.toISOString() })),
        meta: { total: Number(count.n), page, per_page: perPage },
      }
    },
  )
}
