import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { deleteAccountLead, listAccountLeads, type Lead } from '../../domain/leads/leads.ts'
import { listAccountSites } from '../../domain/sites/sites.ts'
import { errors } from '../../errors.ts'
import { html } from '../../infra/html.ts'
import { actionForm, dataTable, when } from '../layout.ts'
import { auditedChange } from '../audited-change.ts'
import { mayChange } from '../permissions.ts'
import { csvTable } from '../csv.ts'

const Query = Type.Object(
  { site_id: Type.Optional(Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' })), done: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
)

function csv(leads: Lead[]): string {
  const header = [
    'id',
    'site_id',
    'source',
    'email',
    'name',
    'note',
    'consent_version',
    'consent_locale',
    'consent_digest',
    'given_at',
    'created_at',
  ]
  return csvTable(
    header,
    leads.map((l) => [
      l.id,
      l.siteId,
      l.source,
      l.email,
      l.name ?? '',
      l.note ?? '',
      l.consent.version,
      l.consent.locale,
      l.consent.digest,
      l.consent.acceptedAt.toISOString(),
      l.createdAt.toISOString(),
    ]),
  )
}

/** Leads: list filtered by site, export as CSV, delete. */
export default async function leadsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db, keyring } = app

  routes.get(
    '/leads',
    { config: { operation: 'dashboard.leads.list' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const siteId = request.query.site_id
      const [{ items }, sites] = await Promise.all([
        listAccountLeads(db, keyring, request.person.accountId, { siteId }, { limit: 100, offset: 0 }),
        listAccountSites(db, request.person.accountId, { limit: 100, offset: 0 }),
      ])
      const csrf = reply.formToken()
      const may = mayChange(request.person)
      return reply.page(
        'Leads',
        'leads',
        html`<form method="get" action="/app/leads" class="card"><label for="site">Site</label><select id="site" name="site_id"><option value="">All sites</option>${sites.items.map(
          (s) => html`<option value="${s.id}"${s.id === siteId ? html` selected` : ''}>${s.name}</option>`,
        )}</select> <button type="submit" class="secondary">Filter</button> <a class="button" href="/app/leads.csv${siteId ? `?site_id=${siteId}` : ''}">Export CSV</a></form>
${
  items.length === 0
    ? html`<p>No leads yet.</p>`
    : dataTable(
        'Leads',
        ['Received', 'Email', 'Name', 'Note', 'Source', ...(may ? ['Actions'] : [])],
        items.map((l) => [
          when(l.createdAt),
          l.email,
          l.name,
          l.note,
          l.source,
          ...(may ? [actionForm(`/app/leads/${l.id}/delete`, csrf, `Delete lead ${l.email}`, { kind: 'danger' })] : []),
        ]),
      )
}`,
      )
    },
  )

  routes.get(
    '/leads.csv',
    { config: { operation: 'dashboard.leads.export' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const leads: Lead[] = []
      for (let offset = 0; ; offset += 100) {
        const { items, total } = await listAccountLeads(
          db,
          keyring,
          request.person.accountId,
          { siteId: request.query.site_id },
          { limit: 100, offset },
        )
        leads.push(...items)
        if (offset + 100 >= total) break
      }
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="leads.csv"').send(csv(leads))
    },
  )

  routes.post(
    '/leads/:id/delete',
    {
      config: { operation: 'dashboard.leads.delete' },
      schema: {
        hide: true,
        params: Type.Object({ id: Type.String({ pattern: '^lead_[A-Za-z0-9_-]{1,64}$' }) }),
        body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      await auditedChange(request, async (trx) => {
        if (!(await deleteAccountLead(trx, request.person.accountId, request.params.id))) throw new errors.notFound('No such lead')
      })
      return reply.redirect('/app/leads?done=lead-deleted', 303)
    },
  )
}
