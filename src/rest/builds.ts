import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { buildView, findSiteBuild, listSiteBuilds, queueBuild, rollbackTo } from '../domain/sites/builds.ts'
import { answerChange } from './audited-change.ts'
import { envelope, ListEnvelope, ListQuery, pageOf, sendItem } from './http.ts'
import { Build, BuildId, params, Rollback, Site, SiteId } from './schemas/content.ts'
import { getAccountSite } from '../domain/sites/sites.ts'
import { siteView } from '../domain/sites/views.ts'
import { orNotFound, requireSite } from './sites.ts'
import { Type } from 'typebox'

const tags = ['sites']

/**
 * Builds of a site (DESIGN.md 7 and 9): a rebuild is queued as the job `site.build` (202), never
 * two at once per site; rollback points the site back at an earlier succeeded build.
 */
export default async function buildRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.post(
    '/sites/:id/rebuild',
    {
      config: { operation: 'sites.rebuild', scope: 'write:pages', access: 'write', etag: [202], location: [202] },
      schema: {
        summary: 'Rebuild and publish the site (the build in progress if there is one)',
        tags,
        params: params('id', SiteId),
        response: { 202: Build },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.id)
      return answerChange(
        request,
        reply,
        (trx) => queueBuild(trx, site.id),
        ({ build }) => ({ status: 202, body: buildView(build), location: `/v1/sites/${site.id}/builds/${build.id}` }),
      )
    },
  )

  typed.get(
    '/sites/:id/builds',
    {
      config: { operation: 'builds.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the builds of a site',
        tags,
        params: params('id', SiteId),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Build, 'Builds, newest first') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      const paging = pageOf(request.query)
      const { items, total } = await listSiteBuilds(app.db, site.id, paging)
      return envelope(items.map(buildView), total, paging.page, paging.perPage)
    },
  )

  typed.get(
    '/sites/:id/builds/:build_id',
    {
      config: { operation: 'builds.get', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'Get a build',
        tags,
        params: Type.Object({ id: SiteId, build_id: BuildId }, { additionalProperties: false }),
        response: { 200: Build },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.id)
      return sendItem(reply, buildView(orNotFound(await findSiteBuild(app.db, site.id, request.params.build_id), 'Build')))
    },
  )

  typed.post(
    '/sites/:id/rollback',
    {
      config: { operation: 'sites.rollback', scope: 'write:pages', access: 'write', etag: [200] },
      schema: {
        summary: 'Put an earlier succeeded build live again',
        tags,
        params: params('id', SiteId),
        body: Rollback,
        response: { 200: Site },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.id)
      return answerChange(
        request,
        reply,
        (trx) => rollbackTo(trx, site.id, request.body.build_id),
        async (_build, trx) => ({
          status: 200,
          body: siteView(orNotFound(await getAccountSite(trx, request.principal.accountId, site.id), 'Site'), app.config),
        }),
      )
    },
  )
}
