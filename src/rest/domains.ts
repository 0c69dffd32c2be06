import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import {
  addDomain,
  deleteDomain,
  domainView,
  getAccountDomain,
  listSiteDomains,
  parseHostname,
  requestVerification,
} from '../domain/sites/domains.ts'
import { serviceHostnames } from '../domain/sites/subdomains.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, pageOf, sendItem } from './http.ts'
import { Domain, DomainId, NewDomain, params, SiteId } from './schemas/content.ts'
import { orNotFound, requireSite } from './sites.ts'

const tags = ['domains']

/**
 * Domains of a site (DESIGN.md 7). A new domain is pending until its TXT challenge is found:
 * POST …/verify answers 202 and the job `domain.verify` looks the record up through the resolver
 * DNS_SERVERS names, making the domain active (on this site only) or failed.
 */
export default async function domainRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const ownHostnames = serviceHostnames(app.config)

  typed.get(
    '/sites/:site_id/domains',
    {
      config: { operation: 'domains.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the domains of a site',
        tags,
        params: params('site_id', SiteId),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Domain, 'Domains, oldest first') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.site_id)
      const paging = pageOf(request.query)
      const { items, total } = await listSiteDomains(app.db, site.id, paging)
      return envelope(items.map(domainView), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/sites/:site_id/domains',
    {
      config: { operation: 'domains.create', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Add a domain (pending until verified)',
        tags,
        params: params('site_id', SiteId),
        body: NewDomain,
        response: { 201: Domain },
      },
    },
    async (request, reply) => {
      const site = await requireSite(request, request.params.site_id)
      const hostname = parseHostname(request.body.hostname, ownHostnames)
      return answerChange(
        request,
        reply,
        (trx) => addDomain(trx, site.id, hostname, request.body.primary),
        (domain) => ({ status: 201, body: domainView(domain), location: `/v1/domains/${domain.id}` }),
      )
    },
  )

  typed.get(
    '/domains/:id',
    {
      config: { operation: 'domains.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Get a domain with its verification record', tags, params: params('id', DomainId), response: { 200: Domain } },
    },
    async (request, reply) =>
      sendItem(reply, domainView(orNotFound(await getAccountDomain(app.db, request.principal.accountId, request.params.id), 'Domain'))),
  )

  typed.delete(
    '/domains/:id',
    {
      config: { operation: 'domains.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Remove a domain',
        tags,
        params: params('id', DomainId),
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => {
          const domain = orNotFound(await getAccountDomain(trx, request.principal.accountId, request.params.id), 'Domain')
          assertIfMatch(request, etagOf(domainView(domain)))
          await deleteDomain(trx, domain)
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )

  typed.post(
    '/domains/:id/verify',
    {
      config: { operation: 'domains.verify', scope: 'write:pages', access: 'write', etag: [202], location: [202] },
      schema: {
        summary: 'Look up the TXT challenge (asynchronously); GET the domain for the outcome',
        tags,
        params: params('id', DomainId),
        response: { 202: Domain },
      },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const current = orNotFound(await getAccountDomain(trx, request.principal.accountId, request.params.id), 'Domain')
          return requestVerification(trx, current)
        },
        (domain) => ({ status: 202, body: domainView(domain), location: `/v1/domains/${domain.id}` }),
      )
    },
  )
}
