import type { Db } from '../../infra/db.ts'
import { newId } from '../../infra/crypto.ts'
import type { AuditReport } from './engine.ts'

export interface StoredReport {
  id: string
  report: AuditReport
  created_at: Date
}

/** The newest report for this domain and depth made after `since`, if any. */
export async function findRecentReport(db: Db, domain: string, premium: boolean, since: Date): Promise<StoredReport | undefined> {
  const row = await db
    .selectFrom('audit_reports')
    .select(['id', 'report', 'created_at'])
    .where('domain', '=', domain)
    .where('premium', '=', premium)
    .where('created_at', '>', since)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? { id: row.id, report: row.report as AuditReport, created_at: row.created_at } : undefined
}

export async function saveReport(db: Db, report: AuditReport): Promise<StoredReport> {
  const id = newId('aud')
  const row = await db
    .insertInto('audit_reports')
    .values({ id, domain: report.domain, premium: report.premium, report: JSON.stringify(report) })
    .returning(['created_at'])
    .executeTakeFirstOrThrow()
  return { id, report, created_at: row.created_at }
}
