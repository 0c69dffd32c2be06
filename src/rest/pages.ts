import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { createPage, deletePage, getAccountPage, listSitePages, updatePage, type Page as PageRow } from '../domain/sites/pages.ts'
import { pageView } from '../domain/sites/views.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, pageOf, sendItem } from './http.ts'
import { NewPage, Page, PageId, PagePatch, params, SiteId } from './schemas/content.ts'
import { orNotFound, requireSite } from './sites.ts'

/** The account's page named by the route, or 404. */
export async function requirePage(request: FastifyRequest, pageId: string): Promise<PageRow> {
  return orNotFound(await getAccountPage(request.server.db, request.principal.accountId, pageId), 'Page')
}

const tags = ['pages']
const ifMatch = (request: FastifyRequest) => (current: PageRow) => assertIfMatch(request, etagOf(pageView(current)))

/** Pages of a site (DESIGN.md 7): a path is unique per site and locale (409 page_path_taken). */
export default async function pageRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/sites/:site_id/pages',
    {
      config: { operation: 'pages.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the pages of a site',
        tags,
        params: params('site_id', SiteId),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Page, 'Pages by locale and path') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.site_id)
      const paging = pageOf(request.query)
      const { items, total } = await listSitePages(app.db, site.id, paging)
      return envelope(items.map(pageView), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/sites/:site_id/pages',
    {
      config: { operation: 'pages.create', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Create a page (locale: the site’s default unless given)',
        tags,
        params: params('site_id', SiteId),
        body: NewPage,
        response: { 201: Page },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.site_id)
      return answerChange(
        request,
        reply,
        (trx) => createPage(trx, site, request.body),
        (page) => ({ status: 201, body: pageView(page), location: `/v1/pages/${page.id}` }),
      )
    },
  )

  typed.get(
    '/pages/:id',
    {
      config: { operation: 'pages.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Get a page', tags, params: params('id', PageId), response: { 200: Page } },
    },
    async (request, reply) => sendItem(reply, pageView(await requirePage(request, request.params.id))),
  )

  typed.patch(
    '/pages/:id',
    {
      config: { operation: 'pages.update', scope: 'write:pages', access: 'write' },
      schema: { summary: 'Change a page', tags, params: params('id', PageId), body: PagePatch, response: { 200: Page } },
    },
    async (request, reply) => {
      const page = await auditedChange(request, async (trx) =>
        orNotFound(await updatePage(trx, request.principal.accountId, request.params.id, request.body, ifMatch(request)), 'Page'),
      )
      return sendItem(reply, pageView(page))
    },
  )

  typed.delete(
    '/pages/:id',
    {
      config: { operation: 'pages.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Delete a page with its blocks',
        tags,
        params: params('id', PageId),
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => orNotFound(await deletePage(trx, request.principal.accountId, request.params.id, ifMatch(request)), 'Page'),
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
