import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { siteView } from '../domain/sites/views.ts'
import {
  createAccountSite,
  deleteAccountSite,
  prepareDraft,
  getAccountSite,
  listAccountSites,
  updateAccountSite,
  type SiteRecord,
} from '../domain/sites/sites.ts'
import { slugFromInput } from '../domain/sites/subdomains.ts'
import { copyWriterOf } from '../domain/sites/templates/llm-copy.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, notFound, pageOf, sendItem } from './http.ts'
import { NewSite, params, Site, SiteId, SitePatch } from './schemas/content.ts'

/** The value, or the 404 of `what` when the repository found nothing the account may see. */
export function orNotFound<T>(value: T | undefined | false, what: string): T {
  if (value === undefined || value === false) throw notFound(what)
  return value
}

/** The account's site named by the route, or 404 (another account's site looks the same as none). */
export async function requireSite(request: FastifyRequest, siteId: string): Promise<SiteRecord> {
  return orNotFound(await getAccountSite(request.server.db, request.principal.accountId, siteId), 'Site')
}

const SiteParams = params('id', SiteId)
const tags = ['sites']

/** /v1/sites (DESIGN.md 7): the list answers the envelope of INTERFACE.md 2.4. */
export default async function siteRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const view = (site: SiteRecord) => siteView(site, app.config)
  const ifMatch = (request: FastifyRequest) => (current: SiteRecord) => assertIfMatch(request, etagOf(view(current)))
  const writer = copyWriterOf(app.config, (err) =>
    app.log.warn({ err }, 'the model did not write the draft; the template’s words are used'),
  )

  typed.get(
    '/sites',
    {
      config: { operation: 'sites.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List sites',
        tags,
        querystring: ListQuery,
        response: { 200: ListEnvelope(Site, 'Sites of the account, oldest first') },
      },
    },
    async (request) => {
      const paging = pageOf(request.query)
      const { items, total } = await listAccountSites(app.db, request.principal.accountId, paging)
      return envelope(items.map(view), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/sites',
    {
      config: { operation: 'sites.create', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Create a site (draft, no domain yet); with template and business, its first draft: five pages filled with the facts',
        tags,
        body: NewSite,
        response: { 201: Site },
      },
    },
    async (request, reply) => {
      const draft = await prepareDraft(request.body, writer)
      return answerChange(
        request,
        reply,
        (trx) => createAccountSite(trx, request.principal.accountId, request.body, draft),
        (site) => ({ status: 201, body: view(site), location: `/v1/sites/${site.id}` }),
      )
    },
  )

  typed.get(
    '/sites/:id',
    {
      config: { operation: 'sites.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Get a site', tags, params: SiteParams, response: { 200: Site } },
    },
    async (request, reply) => sendItem(reply, view(await requireSite(request, request.params.id))),
  )

  typed.patch(
    '/sites/:id',
    {
      config: { operation: 'sites.update', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Change a site: name, subdomain, locales, assistant, or status live/offline',
        tags,
        params: SiteParams,
        body: SitePatch,
        response: { 200: Site },
      },
    },
    async (request, reply) => {
      const { subdomain, ...patch } = request.body
      const slug = subdomain === undefined ? {} : { slug: slugFromInput(subdomain, app.config.SITES_DOMAIN) }
      const site = await auditedChange(request, async (trx) =>
        orNotFound(
          await updateAccountSite(trx, request.principal.accountId, request.params.id, { ...patch, ...slug }, ifMatch(request)),
          'Site',
        ),
      )
      return sendItem(reply, view(site))
    },
  )

  typed.delete(
    '/sites/:id',
    {
      config: { operation: 'sites.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Delete a site with its pages, domains, builds, leads and conversations',
        tags,
        params: SiteParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => orNotFound(await deleteAccountSite(trx, request.principal.accountId, request.params.id, ifMatch(request)), 'Site'),
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
