import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { deleteAccountLead, getAccountLead, listAccountLeads, setLeadStatus } from '../domain/leads/leads.ts'
import { listQuery, pageOf, envelope, ListEnvelope, sendItem, assertIfMatch, etagOf } from './http.ts'
import { leadView } from '../domain/sites/views.ts'
import { auditedChange } from './audited-change.ts'
import { Lead, LeadId, LeadPatch, LeadStatus, params, SiteId } from './schemas/content.ts'
import { orNotFound } from './sites.ts'

const LeadsQuery = listQuery({
  site_id: Type.Optional(SiteId),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only leads created at or after this time' })),
  status: Type.Optional(LeadStatus),
})
const tags = ['leads']

/** Leads of the account's sites (DESIGN.md 7), scope manage:leads; newest first. */
export default async function leadRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/leads',
    {
      config: { operation: 'leads.list', scope: 'manage:leads', access: 'read' },
      schema: { summary: 'List leads', tags, querystring: LeadsQuery, response: { 200: ListEnvelope(Lead, 'Leads, newest first') } },
    },
    async (request) => {
      const paging = pageOf(request.query)
      const filter = {
        siteId: request.query.site_id,
        since: request.query.since === undefined ? undefined : new Date(request.query.since),
        status: request.query.status,
      }
      const { items, total } = await listAccountLeads(app.db, app.keyring, request.principal.accountId, filter, paging)
      return envelope(items.map(leadView), total, paging.page, paging.perPage)
    },
  )

  typed.get(
    '/leads/:id',
    {
      config: { operation: 'leads.get', scope: 'manage:leads', access: 'read' },
      schema: { summary: 'Get a lead', tags, params: params('id', LeadId), response: { 200: Lead } },
    },
    async (request, reply) =>
      sendItem(
        reply,
        leadView(orNotFound(await getAccountLead(app.db, app.keyring, request.principal.accountId, request.params.id), 'Lead')),
      ),
  )

  typed.patch(
    '/leads/:id',
    {
      config: { operation: 'leads.update', scope: 'manage:leads', access: 'write' },
      schema: {
        summary: "Change a lead's status (new, answered, archived)",
        tags,
        params: params('id', LeadId),
        body: LeadPatch,
        response: { 200: Lead },
      },
    },
    async (request, reply) => {
      const lead = await auditedChange(request, async (trx) =>
        orNotFound(
          await setLeadStatus(trx, app.keyring, request.principal.accountId, request.params.id, request.body.status, (current) =>
            assertIfMatch(request, etagOf(leadView(current))),
          ),
          'Lead',
        ),
      )
      return sendItem(reply, leadView(lead))
    },
  )

  typed.delete(
    '/leads/:id',
    {
      config: { operation: 'leads.delete', scope: 'manage:leads', access: 'write' },
      schema: {
        summary: 'Delete a lead (erasure)',
        tags,
        params: params('id', LeadId),
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => {
          const lead = orNotFound(await getAccountLead(trx, app.keyring, request.principal.accountId, request.params.id), 'Lead')
          assertIfMatch(request, etagOf(leadView(lead)))
          await deleteAccountLead(trx, request.principal.accountId, lead.id)
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
