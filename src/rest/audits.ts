import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { Selectable } from 'kysely'
import { recordEvent } from '../domain/events.ts'
import { getAccountSite } from '../domain/sites.ts'
import { errors } from '../errors.ts'
import { newId } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { createSafeFetcher, type SafeFetcher } from '../infra/fetcher.ts'
import { enqueueJob } from '../infra/jobs.ts'
import type { SiteAuditsTable } from '../infra/tables.ts'
// The audit engine still lives in the public room; it is to move to a shared place (see docs/decisions.md).
import { runAudit } from '../domain/seo-audit/engine.ts'
import { saveReport } from '../domain/seo-audit/store.ts'
import { answerChange } from './audit.ts'
import { notFound, sendItem } from './http.ts'

/**
 * SEO/AEO/GEO audits of a site's primary domain (DESIGN.md 8): asked for through
 * POST /v1/sites/{id}/audits or made weekly for every live site, run as jobs; a finished audit
 * fires seo.report.ready with its scores and the URL to read it. Asking for an audit starts work,
 * so it needs write:pages (as a rebuild does); reading one needs read:sites.
 */

export const SITE_AUDIT_JOB = 'site.audit'
export const WEEKLY_AUDIT_JOB = 'site.audit.weekly'

type AuditRow = Selectable<SiteAuditsTable>

const SiteAudit = Type.Object(
  {
    id: Type.String({ description: 'audit_…' }),
    site_id: Type.String(),
    domain: Type.String(),
    state: Type.Union([Type.Literal('queued'), Type.Literal('done'), Type.Literal('failed')]),
    trigger: Type.Union([Type.Literal('api'), Type.Literal('weekly'), Type.Literal('mcp')]),
    score: Type.Union([Type.Integer(), Type.Null()]),
    axes: Type.Union([Type.Object({ seo: Type.Number(), aeo: Type.Number(), geo: Type.Number() }, { additionalProperties: false }), Type.Null()]),
    report: Type.Union([Type.Object({}, { additionalProperties: true, description: 'The full report (findings, quick wins, …) once done.' }), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false, description: 'A site audit' },
)
const SiteParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false })
const AuditParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), audit_id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false })

async function view(db: Db, row: AuditRow) {
  const report = row.report_id ? await db.selectFrom('audit_reports').select('report').where('id', '=', row.report_id).executeTakeFirst() : undefined
  return {
    id: row.id,
    site_id: row.site_id,
    domain: row.domain,
    state: row.state,
    trigger: row.trigger,
    score: row.score,
    axes: row.axes as { seo: number; aeo: number; geo: number } | null,
    report: (report?.report as Record<string, unknown> | undefined) ?? null,
    error: row.error,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  }
}

/** Stores a queued audit and its job in the caller's transaction. */
export async function queueSiteAudit(db: Db, audit: { accountId: string; siteId: string; domain: string; trigger: AuditRow['trigger'] }): Promise<AuditRow> {
  const row = await db
    .insertInto('site_audits')
    .values({ id: newId('audit'), account_id: audit.accountId, site_id: audit.siteId, domain: audit.domain, trigger: audit.trigger, report_id: null, score: null, error: null, finished_at: null })
    .returningAll()
    .executeTakeFirstOrThrow()
  await enqueueJob(db, SITE_AUDIT_JOB, { audit_id: row.id }, { uniqueKey: row.id, maxAttempts: 3 })
  return row
}

/** Runs one queued audit; the stored result and seo.report.ready commit together. */
export async function runSiteAudit(db: Db, fetcher: SafeFetcher, apiUrl: string, auditId: string): Promise<void> {
  const audit = await db.selectFrom('site_audits').selectAll().where('id', '=', auditId).executeTakeFirst()
  if (!audit || audit.state !== 'queued') return
  const report = await runAudit(fetcher, audit.domain, false)
  const stored = await saveReport(db, report)
  const axes = { seo: report.axes.seo.score, aeo: report.axes.aeo.score, geo: report.axes.geo.score }
  await db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('site_audits')
      .set({ state: 'done', report_id: stored.id, score: report.score, axes: JSON.stringify(axes), finished_at: new Date() })
      .where('id', '=', audit.id)
      .where('state', '=', 'queued')
      .executeTakeFirst()
    if (done.numUpdatedRows === 0n) return
    await recordEvent(trx, {
      accountId: audit.account_id,
      siteId: audit.site_id,
      type: 'seo.report.ready',
      data: { audit_id: audit.id, site_id: audit.site_id, domain: audit.domain, score: report.score, axes, url: `${apiUrl}/v1/sites/${audit.site_id}/audits/${audit.id}` },
    })
  })
}

/** Queues an audit of every live site of an account that has an active primary domain. */
export async function queueWeeklyAudits(db: Db): Promise<number> {
  const sites = await db
    .selectFrom('sites as s')
    .innerJoin('domains as d', 'd.site_id', 's.id')
    .select(['s.id', 's.account_id', 'd.hostname'])
    .where('s.status', '=', 'live')
    .where('s.account_id', 'is not', null)
    .where('d.primary', '=', true)
    .where('d.status', '=', 'active')
    .execute()
  for (const site of sites) {
    await db.transaction().execute((trx) => queueSiteAudit(trx, { accountId: site.account_id!, siteId: site.id, domain: site.hostname, trigger: 'weekly' }))
  }
  return sites.length
}

/** Mondays at 05:00 UTC, keyed by the day so N instances schedule it once. */
function nextMonday(from: Date): Date {
  const at = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), 5))
  at.setUTCDate(at.getUTCDate() + ((8 - at.getUTCDay()) % 7))
  if (at <= from) at.setUTCDate(at.getUTCDate() + 7)
  return at
}

function scheduleWeekly(db: Db, from = new Date()) {
  const at = nextMonday(from)
  return enqueueJob(db, WEEKLY_AUDIT_JOB, {}, { runAt: at, uniqueKey: at.toISOString().slice(0, 10), maxAttempts: 5 })
}

/** POST and GET /v1/sites/{id}/audits, the audit job and the weekly job. */
export default async function auditRoutes(app: FastifyInstance) {
  const { db } = app
  const fetcher = createSafeFetcher({ allowPrivateNetworks: app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connections: 4 })
  app.addHook('onClose', () => fetcher.close())
  app.jobs.define<{ audit_id: string }>(SITE_AUDIT_JOB, {
    maxAttempts: 3,
    leaseMs: 120_000,
    handler: async (payload, { job }) => {
      try {
        await runSiteAudit(db, fetcher, app.config.API_URL, payload.audit_id)
      } catch (error) {
        // The last try records why, so GET answers `failed` instead of `queued` for ever.
        if (job.attempts >= 3) {
          await db.updateTable('site_audits').set({ state: 'failed', error: 'The audit could not be completed', finished_at: new Date() }).where('id', '=', payload.audit_id).where('state', '=', 'queued').execute()
        }
        throw error
      }
    },
  })
  app.jobs.define(WEEKLY_AUDIT_JOB, {
    handler: async (_payload, { log }) => {
      await scheduleWeekly(db)
      log.info({ sites: await queueWeeklyAudits(db) }, 'weekly site audits queued')
    },
  })
  app.addHook('onReady', async () => {
    await scheduleWeekly(db).catch((error: unknown) => app.log.warn({ err: error }, 'could not schedule the weekly site audits'))
  })

  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/sites/:id/audits',
    {
      config: { operation: 'audits.create', scope: 'write:pages', access: 'write', location: [202] },
      schema: { summary: "Audit the site's primary domain (SEO, AEO, GEO) as a job", tags: ['audits'], params: SiteParams, response: { 202: SiteAudit } },
    },
    async (request, reply) => {
      return answerChange(
        request,
        reply,
        async (trx) => {
          const site = await getAccountSite(trx, request.principal.accountId, request.params.id)
          if (!site) throw notFound('Site')
          if (!site.domain) throw new errors.siteHasNoDomain('The site has no active primary domain to audit')
          return queueSiteAudit(trx, { accountId: request.principal.accountId, siteId: site.id, domain: site.domain, trigger: 'api' })
        },
        async (row, trx) => ({ status: 202, body: await view(trx, row), location: `/v1/sites/${row.site_id}/audits/${row.id}`, etagSource: false }),
      )
    },
  )

  typed.get(
    '/sites/:id/audits/:audit_id',
    {
      config: { operation: 'audits.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Read a site audit; the report is there once it is done', tags: ['audits'], params: AuditParams, response: { 200: SiteAudit } },
    },
    async (request, reply) => {
      const row = await db
        .selectFrom('site_audits')
        .selectAll()
        .where('id', '=', request.params.audit_id)
        .where('site_id', '=', request.params.id)
        .where('account_id', '=', request.principal.accountId)
        .executeTakeFirst()
      if (!row) throw notFound('Audit')
      return sendItem(reply, await view(db, row))
    },
  )
}
