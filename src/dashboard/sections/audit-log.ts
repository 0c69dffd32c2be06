import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listMembers } from '../../domain/accounts/members.ts'
import { listAuditRecords } from '../../domain/accounts/audit-log.ts'
import { errors } from '../../errors.ts'
import { html } from '../../infra/html.ts'
import { dataTable } from '../layout.ts'
import type { Translator } from '../../domain/i18n/translator.ts'

const Query = Type.Object(
  {
    token_id: Type.Optional(Type.String({ maxLength: 80 })),
    user_id: Type.Optional(Type.String({ maxLength: 80 })),
    since: Type.Optional(Type.String({ maxLength: 40 })),
    until: Type.Optional(Type.String({ maxLength: 40 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  { additionalProperties: false },
)
const PER_PAGE = 50

/** Time from a datetime-local field (UTC), or undefined when empty. */
function utc(t: Translator, value: string | undefined): Date | undefined {
  if (!value) return undefined
  const date = new Date(value.endsWith('Z') ? value : `${value}Z`)
  if (Number.isNaN(date.getTime())) throw new errors.validationFailed(t.t('audit.error.time'))
  return date
}

/** The audit log of every /v1, MCP and dashboard call of the account, with the member who acted, filtered by member, token and time. */
export default async function auditLogSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/audit-log',
    { config: { operation: 'dashboard.audit.list' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const { token_id: tokenId, user_id: userId, since, until } = request.query
      const page = request.query.page ?? 1
      const t = request.t
      const from = utc(t, since)
      const to = utc(t, until)
      const filter = {
        ...(tokenId ? { tokenId } : {}),
        ...(userId ? { userId } : {}),
        ...(from ? { since: from } : {}),
        ...(to ? { until: to } : {}),
      }
      const [{ rows, total }, members] = await Promise.all([
        listAuditRecords(app.db, request.person.accountId, filter, { limit: PER_PAGE, offset: (page - 1) * PER_PAGE }),
        listMembers(app.db, app.keyring, request.person.accountId),
      ])
      const emails = new Map(members.map((m) => [m.id, m.email]))
      const next = new URLSearchParams({
        ...(tokenId ? { token_id: tokenId } : {}),
        ...(userId ? { user_id: userId } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        page: String(page + 1),
      })
      return reply.page(
        t.t('audit.title'),
        'audit',
        html`<form method="get" action="/app/audit-log" class="card">
<label for="member">${t.t('audit.member')}</label><select id="member" name="user_id"><option value="">${t.t('audit.everyMember')}</option>${members.map((m) => html`<option value="${m.id}"${m.id === userId ? html` selected` : ''}>${m.email}</option>`)}</select>
<label for="token">${t.t('audit.tokenId')}</label><input id="token" name="token_id" value="${tokenId ?? ''}" maxlength="80">
<label for="since">${t.t('audit.from')}</label><input id="since" name="since" type="datetime-local" value="${since ?? ''}">
<label for="until">${t.t('audit.until')}</label><input id="until" name="until" type="datetime-local" value="${until ?? ''}">
<p><button type="submit" class="secondary">${t.t('audit.filter')}</button></p></form>
<p>${t.t('audit.count', { total })}</p>
${dataTable(
  t.t('audit.records'),
  [
    t.t('audit.col.time'),
    t.t('audit.member'),
    t.t('audit.col.operation'),
    t.t('audit.col.call'),
    t.t('audit.col.status'),
    t.t('audit.col.token'),
    t.t('audit.col.address'),
  ],
  rows.map((r) => [
    t.dateTime(r.at),
    r.user_id ? (emails.get(r.user_id) ?? html`<code>${r.user_id}</code>`) : t.t('common.none'),
    html`<code>${r.operation}</code>`,
    html`<code>${r.method} ${r.path}</code>`,
    r.status,
    r.token_id || r.client_id ? html`<code>${r.token_id ?? r.client_id}</code>` : t.t('audit.dashboard'),
    r.ip,
  ]),
)}
${page * PER_PAGE < total ? html`<p><a href="/app/audit-log?${next.toString()}">${t.t('audit.older')}</a></p>` : ''}`,
      )
    },
  )
}
