import type { Selectable } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { SiteAuditsTable } from '../../infra/tables.ts'
import type { Paging } from '../paging.ts'

/**
 * Audits of a site's live address (SEO, AEO, GEO): asked for through /v1 (trigger api), or the
 * scheduled report of the account's plan (trigger weekly or monthly, one per site and period).
 */

export type AuditRow = Selectable<SiteAuditsTable>
export type AuditTrigger = AuditRow['trigger']

/** The job that runs an audit asked for; payload `{audit_id}`. */
export const SITE_AUDIT_JOB = 'site.audit'
/** The job that runs a scheduled report (retried later when the site cannot be reached); payload `{audit_id}`. */
export const REPORT_JOB = 'seo.report'

/** Tries of an audit asked for, and of a scheduled report. */
export const AUDIT_ATTEMPTS = 3
export const REPORT_ATTEMPTS = 4

export interface Axes {
  seo: number
  aeo: number
  geo: number
}

export interface AuditSummary {
  id: string
  site_id: string
  domain: string
  state: AuditRow['state']
  trigger: AuditTrigger
  /** The week or month of a scheduled report ("2026-W48", "2026-11"); null for one asked for. */
  period: string | null
  score: number | null
  axes: Axes | null
  error: string | null
  created_at: string
  finished_at: string | null
}

export interface AuditView extends AuditSummary {
  report: Record<string, unknown> | null
}

export function auditSummary(row: AuditRow): AuditSummary {
  return {
    id: row.id,
    site_id: row.site_id,
    domain: row.domain,
    state: row.state,
    trigger: row.trigger,
    period: row.period,
    score: row.score,
    axes: row.axes as Axes | null,
    error: row.error,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  }
}

export async function auditView(db: Db, row: AuditRow): Promise<AuditView> {
  const report = row.report_id
    ? await db.selectFrom('audit_reports').select('report').where('id', '=', row.report_id).executeTakeFirst()
    : undefined
  return { ...auditSummary(row), report: (report?.report as Record<string, unknown> | undefined) ?? null }
}

export interface NewAudit {
  accountId: string
  siteId: string
  domain: string
  trigger: AuditTrigger
  period?: string
}

/**
 * Stores a queued audit and its job in the caller's transaction. A scheduled report whose site
 * already has one for the period stores nothing and answers undefined.
 */
export async function queueSiteAudit(db: Db, audit: NewAudit): Promise<AuditRow | undefined> {
  const row = await db
    .insertInto('site_audits')
    .values({
      id: newId('audit'),
      account_id: audit.accountId,
      site_id: audit.siteId,
      domain: audit.domain,
      trigger: audit.trigger,
      period: audit.period ?? null,
      report_id: null,
      score: null,
      error: null,
      finished_at: null,
    })
    .onConflict((oc) => oc.columns(['site_id', 'period']).doNothing())
    .returningAll()
    .executeTakeFirst()
  if (!row) return undefined
  const scheduled = row.period !== null
  await enqueueJob(
    db,
    scheduled ? REPORT_JOB : SITE_AUDIT_JOB,
    { audit_id: row.id },
    { uniqueKey: row.id, maxAttempts: scheduled ? REPORT_ATTEMPTS : AUDIT_ATTEMPTS },
  )
  return row
}

/** The account's audit of the site, or undefined (another account's looks the same as none). */
export async function getSiteAudit(db: Db, accountId: string, siteId: string, auditId: string): Promise<AuditRow | undefined> {
  return db
    .selectFrom('site_audits')
    .selectAll()
    .where('id', '=', auditId)
    .where('site_id', '=', siteId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
}

/** A site's audits and reports, newest first. */
export async function listSiteAudits(db: Db, siteId: string, page: Paging): Promise<{ items: AuditRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('site_audits')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('site_audits')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

/** The finished audits of a site, oldest first, newest `limit`: the history the dashboard draws. */
export async function scoreHistory(db: Db, siteId: string, limit = 26): Promise<AuditRow[]> {
  const rows = await db
    .selectFrom('site_audits')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('state', '=', 'done')
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows.reverse()
}
