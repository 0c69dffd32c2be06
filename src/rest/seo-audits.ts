import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { getAccountSite } from '../domain/sites/sites.ts'
import { auditSummary, auditView, getSiteAudit, listSiteAudits, queueSiteAudit } from '../domain/seo-reports/site-audits.ts'
import { errors } from '../errors.ts'
import { answerChange } from './audited-change.ts'
import { envelope, ListEnvelope, ListQuery, notFound, pageOf, sendItem } from './http.ts'
import { requireSite } from './sites.ts'

/**
 * SEO/AEO/GEO audits of a site (DESIGN.md 8 and 12): asked for through POST /v1/sites/{id}/audits,
 * or the scheduled report of the account's plan (weekly or monthly), run as jobs; a finished
 * audit fires seo.report.ready with its scores and the URL to read it. Asking for an audit starts
 * work, so it needs write:pages (as a rebuild does); reading them needs read:sites.
 */

const Axes = Type.Union([
  Type.Object({ seo: Type.Number(), aeo: Type.Number(), geo: Type.Number() }, { additionalProperties: false }),
  Type.Null(),
])
const summaryFields = {
  id: Type.String({ description: 'audit_…' }),
  site_id: Type.String(),
  domain: Type.String({ description: 'The address audited: the primary active domain, or the platform subdomain' }),
  state: Type.Union([Type.Literal('queued'), Type.Literal('done'), Type.Literal('failed')]),
  trigger: Type.Union([Type.Literal('api'), Type.Literal('mcp'), Type.Literal('weekly'), Type.Literal('monthly')], {
    description: 'api: asked for; weekly, monthly: the scheduled report of the plan',
  }),
  period: Type.Union([Type.String(), Type.Null()], { description: 'The week ("2026-W48") or month ("2026-11") of a scheduled report' }),
  score: Type.Union([Type.Integer(), Type.Null()]),
  axes: Axes,
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}
const SiteAuditSummary = Type.Object(summaryFields, {
  additionalProperties: false,
  description: 'A site audit or scheduled report, without its full report',
})
const SiteAudit = Type.Object(
  {
    ...summaryFields,
    report: Type.Union([
      Type.Object({}, { additionalProperties: true, description: 'The full report (findings, quick wins, …) once done.' }),
      Type.Null(),
    ]),
  },
  { additionalProperties: false, description: 'A site audit' },
)
const SiteParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false })
const AuditParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }), audit_id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
)

/** GET and POST /v1/sites/{id}/audits and GET one audit (the audit runs as a job, src/jobs.ts). */
export default async function auditRoutes(app: FastifyInstance) {
  const { db } = app

  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/sites/:id/audits',
    {
      config: { operation: 'audits.create', scope: 'write:pages', access: 'write', location: [202] },
      schema: {
        summary: "Audit the site's primary domain (SEO, AEO, GEO) as a job",
        tags: ['audits'],
        params: SiteParams,
        response: { 202: SiteAudit },
      },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const site = await getAccountSite(trx, request.principal.accountId, request.params.id)
          if (!site) throw notFound('Site')
          if (!site.domain) throw new errors.siteHasNoDomain('The site has no active primary domain to audit')
          return (await queueSiteAudit(trx, {
            accountId: request.principal.accountId,
            siteId: site.id,
            domain: site.domain,
            trigger: 'api',
          }))!
        },
        async (row, trx) => ({
          status: 202,
          body: await auditView(trx, row),
          location: `/v1/sites/${row.site_id}/audits/${row.id}`,
          etagSource: false,
        }),
      )
    },
  )

  typed.get(
    '/sites/:id/audits',
    {
      config: { operation: 'audits.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: "List the site's audits and scheduled SEO reports, newest first",
        tags: ['audits'],
        params: SiteParams,
        querystring: ListQuery,
        response: { 200: ListEnvelope(SiteAuditSummary, 'Audits and reports, newest first; GET one for its full report') },
      },
    },
    async (request) => {
      const site = await requireSite(request, request.params.id)
      const paging = pageOf(request.query)
      const { items, total } = await listSiteAudits(db, site.id, paging)
      return envelope(items.map(auditSummary), total, paging.page, paging.perPage)
    },
  )

  typed.get(
    '/sites/:id/audits/:audit_id',
    {
      config: { operation: 'audits.get', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'Read a site audit; the report is there once it is done',
        tags: ['audits'],
        params: AuditParams,
        response: { 200: SiteAudit },
      },
    },
    async (request, reply) => {
      const row = await getSiteAudit(db, request.principal.accountId, request.params.id, request.params.audit_id)
      if (!row) throw notFound('Audit')
      return sendItem(reply, await auditView(db, row))
    },
  )
}
