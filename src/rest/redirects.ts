import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import {
  createRedirect,
  deleteRedirect,
  getSiteRedirect,
  listSiteRedirects,
  NewRedirect,
  Redirect,
  RedirectId,
  redirectView,
} from '../domain/sites/redirects.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { envelope, ListEnvelope, ListQuery, pageOf } from './http.ts'
import { SiteId } from './schemas/content.ts'
import { orNotFound, requireSite } from './sites.ts'

const tags = ['redirects']

/**
 * Redirects of a site (DESIGN.md 19): listed, added (a loop is 422 redirect_loop, an address
 * already redirected 409 redirect_from_taken) and removed; the site's hosts answer them.
 */
export default async function redirectRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/sites/:id/redirects',
    {
      config: { operation: 'redirects.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the redirects of a site',
        tags,
        params: Type.Object({ id: SiteId }),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Redirect, 'Redirects by address') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      const paging = pageOf(request.query)
      const { items, total } = await listSiteRedirects(app.db, site.id, paging)
      return envelope(items.map(redirectView), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/sites/:id/redirects',
    {
      config: { operation: 'redirects.create', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Add a redirect (301 unless 302 is given); one that leads back to itself is refused',
        tags,
        params: Type.Object({ id: SiteId }),
        body: NewRedirect,
        response: { 201: Redirect },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.id)
      return answerChange(
        request,
        reply,
        (trx) => createRedirect(trx, site.id, request.body),
        (redirect) => ({ status: 201, body: redirectView(redirect), location: `/v1/sites/${site.id}/redirects/${redirect.id}` }),
      )
    },
  )

  typed.get(
    '/sites/:id/redirects/:redirect_id',
    {
      config: { operation: 'redirects.get', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'Get a redirect',
        tags,
        params: Type.Object({ id: SiteId, redirect_id: RedirectId }),
        response: { 200: Redirect },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      return redirectView(orNotFound(await getSiteRedirect(app.db, site.id, request.params.redirect_id), 'Redirect'))
    },
  )

  typed.delete(
    '/sites/:id/redirects/:redirect_id',
    {
      config: { operation: 'redirects.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Remove a redirect',
        tags,
        params: Type.Object({ id: SiteId, redirect_id: RedirectId }),
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.id)
      await auditedChange(
        request,
        async (trx) => orNotFound(await deleteRedirect(trx, site.id, request.params.redirect_id), 'Redirect'),
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
