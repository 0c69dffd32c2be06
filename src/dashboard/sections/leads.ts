import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { deleteAccountLead, LEAD_STATUSES, listAccountLeads, setLeadStatus, type Lead, type LeadStatus } from '../../domain/leads/leads.ts'
import type { MessageKey, Translator } from '../../domain/i18n/translator.ts'
import { listAccountSites } from '../../domain/sites/sites.ts'
import { errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { actionForm, dataTable, when } from '../layout.ts'
import { auditedChange } from '../audited-change.ts'
import { mayChange } from '../permissions.ts'
import { csvTable } from '../csv.ts'

const SiteId = Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' })
const Status = Type.Union(LEAD_STATUSES.map((status) => Type.Literal(status)))
const Query = Type.Object(
  {
    // The filter form's "all" choices send an empty value.
    site_id: Type.Optional(Type.Union([SiteId, Type.Literal('')])),
    status: Type.Optional(Type.Union([Status, Type.Literal('')])),
    done: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
)
const LeadParams = Type.Object({ id: Type.String({ pattern: '^lead_[A-Za-z0-9_-]{1,64}$' }) })

function csv(leads: Lead[]): string {
  const header = [
    'id',
    'site_id',
    'source',
    'status',
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
      l.status,
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

/** The page's filters as a query string, for the CSV link and the way back after a change. */
function filterQuery(siteId: string | undefined, status: string | undefined): URLSearchParams {
  const query = new URLSearchParams()
  if (siteId) query.set('site_id', siteId)
  if (status) query.set('status', status)
  return query
}

/** What the page says after a change of its own (POST-redirect-GET), by code. */
const DONE: Record<string, MessageKey> = { 'status-saved': 'messages.statusSaved' }

function statusForm(t: Translator, csrf: string, lead: Lead, back: { siteId?: string | undefined; status?: string | undefined }): SafeHtml {
  const id = `status-${lead.id}`
  return html`<form method="post" action="/app/leads/${lead.id}/status" class="inline"><input type="hidden" name="_csrf" value="${csrf}">${back.siteId ? html`<input type="hidden" name="site_id" value="${back.siteId}">` : ''}${back.status ? html`<input type="hidden" name="filter" value="${back.status}">` : ''}<label class="sr-only" for="${id}">${t.t('messages.statusOf', { email: lead.email })}</label><select id="${id}" name="status">${LEAD_STATUSES.map(
    (status) => html`<option value="${status}"${status === lead.status ? html` selected` : ''}>${t.t(STATUS_WORDS[status])}</option>`,
  )}</select> <button type="submit" class="secondary">${t.t('messages.statusSave')}</button></form>`
}

const STATUS_WORDS: Record<LeadStatus, MessageKey> = {
  new: 'messages.status.new',
  answered: 'messages.status.answered',
  archived: 'messages.status.archived',
}

/** Leads: list filtered by site and status, each lead's status set with a small form, export as CSV, delete. */
export default async function leadsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db, keyring } = app

  routes.get(
    '/leads',
    { config: { operation: 'dashboard.leads.list' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const { t } = request
      const siteId = request.query.site_id || undefined
      const status = request.query.status || undefined
      const [{ items }, sites] = await Promise.all([
        listAccountLeads(db, keyring, request.person.accountId, { siteId, status }, { limit: 100, offset: 0 }),
        listAccountSites(db, request.person.accountId, { limit: 100, offset: 0 }),
      ])
      const csrf = reply.formToken()
      const may = mayChange(request.person)
      const done = request.query.done === undefined ? undefined : DONE[request.query.done]
      const csvQuery = filterQuery(siteId, status).toString()
      const back = { siteId, status }
      return reply.page(
        t.t('messages.title'),
        'leads',
        html`<form method="get" action="/app/leads" class="card"><label for="site">${t.t('messages.filter.site')}</label><select id="site" name="site_id"><option value="">${t.t('messages.filter.allSites')}</option>${sites.items.map(
          (s) => html`<option value="${s.id}"${s.id === siteId ? html` selected` : ''}>${s.name}</option>`,
        )}</select>
<label for="status">${t.t('messages.filter.status')}</label><select id="status" name="status"><option value="">${t.t('messages.filter.allStatuses')}</option>${LEAD_STATUSES.map(
          (value) => html`<option value="${value}"${value === status ? html` selected` : ''}>${t.t(STATUS_WORDS[value])}</option>`,
        )}</select> <button type="submit" class="secondary">${t.t('messages.filter.apply')}</button> <a class="button" href="/app/leads.csv${csvQuery ? `?${csvQuery}` : ''}">${t.t('messages.export')}</a></form>
<p><a href="/app/notifications">${t.t('messages.notificationsLink')}</a></p>
${
  items.length === 0
    ? html`<p>${t.t(status ? 'messages.noneWithStatus' : 'messages.none')}</p>`
    : dataTable(
        t.t('messages.table'),
        [
          t.t('messages.col.received'),
          t.t('messages.col.email'),
          t.t('messages.col.name'),
          t.t('messages.col.note'),
          t.t('messages.col.source'),
          t.t('messages.col.status'),
          ...(may ? [t.t('messages.col.actions')] : []),
        ],
        items.map((l) => [
          when(l.createdAt),
          l.email,
          l.name,
          l.note,
          t.t(l.source === 'contact_form' ? 'messages.source.contactForm' : 'messages.source.assistant'),
          may ? statusForm(t, csrf, l, back) : t.t(STATUS_WORDS[l.status]),
          ...(may ? [actionForm(`/app/leads/${l.id}/delete`, csrf, t.t('messages.delete', { email: l.email }), { kind: 'danger' })] : []),
        ]),
      )
}`,
        done ? { notice: t.t(done) } : undefined,
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
          { siteId: request.query.site_id || undefined, status: request.query.status || undefined },
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
        params: LeadParams,
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

  routes.post(
    '/leads/:id/status',
    {
      config: { operation: 'dashboard.leads.status' },
      schema: {
        hide: true,
        params: LeadParams,
        body: Type.Object(
          {
            _csrf: Type.Optional(Type.String({ maxLength: 200 })),
            status: Status,
            site_id: Type.Optional(SiteId),
            filter: Type.Optional(Status),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { status, site_id: siteId, filter } = request.body
      await auditedChange(request, async (trx) => {
        if (!(await setLeadStatus(trx, keyring, request.person.accountId, request.params.id, status)))
          throw new errors.notFound('No such lead')
      })
      const back = filterQuery(siteId, filter)
      back.set('done', 'status-saved')
      return reply.redirect(`/app/leads?${back.toString()}`, 303)
    },
  )
}
