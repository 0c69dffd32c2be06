import type { Logger } from 'pino'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { SafeFetcher } from '../../infra/fetcher.ts'
import { enqueueJob, type JobRunner } from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { planEntitlements } from '../accounts/entitlements.ts'
import { accountRecipient } from '../accounts/members.ts'
import { translator, type MessageKey, type Translator } from '../i18n/translator.ts'
import { isLocale } from '../locales.ts'
import { entitlementsOf } from '../accounts/add-ons.ts'
import { recordEvent } from '../webhooks/events.ts'
import { runAudit, type AuditReport } from '../seo-audit/engine.ts'
import { saveReport } from '../seo-audit/store.ts'
import { PLANS, type Plan } from '../accounts/plans.ts'
import { primaryHostname } from '../sites/sites.ts'
import { statsMailLines } from '../stats/summary.ts'
import { findingsByPage, type PageFindings } from './page-findings.ts'
import { periodOf, slotOf, type Cadence } from './schedule.ts'
import { AUDIT_ATTEMPTS, queueSiteAudit, REPORT_ATTEMPTS, REPORT_JOB, SITE_AUDIT_JOB, type AuditRow } from './site-audits.ts'

/**
 * Scheduled SEO reports (DESIGN.md 12): lite monthly, pro and max weekly, for every live
 * site with an own domain or a platform subdomain. An hourly pass queues the reports whose moment
 * in the period has come (src/domain/seo-reports/schedule.ts); each runs our own audit of the live
 * site as a job, keeps the report, fires seo.report.ready and mails the account's owner. An audit
 * that cannot reach the site is tried again later and, when it never can, recorded as failed:
 * no report of an unreachable site, so never a mail with a wrong score.
 */

export interface ReportDeps {
  db: Db
  fetcher: SafeFetcher
  mailer: Mailer
  keyring: Keyring
  log: Logger
  /** API_URL (the event's link), BASE_URL (the dashboard's) and SITES_DOMAIN (the subdomains'). */
  urls: { api: string; base: string; sitesDomain: string }
}

/** The hourly pass that queues due reports; keyed by its hour, so N instances schedule it once. */
export const SCHEDULE_JOB = 'seo.reports.schedule'

const HOUR_MS = 3_600_000
/** Waits before the next try of a report whose audit failed: the site may be back by then. */
const REPORT_RETRY_MS = [5 * 60_000, 30 * 60_000, 2 * HOUR_MS]

function cadenceOf(plan: Plan): Cadence | undefined {
  const cadence = planEntitlements(plan).seoReports
  return cadence === 'none' ? undefined : cadence
}

export interface DueReport {
  accountId: string
  siteId: string
  /** What the audit fetches: the site's primary active domain, else its platform subdomain. */
  domain: string
  cadence: Cadence
  period: string
  slot: Date
}

/** Every live account site with a cadence, with where it is served. */
async function reportedSites(db: Db) {
  return db
    .selectFrom('sites')
    .innerJoin('accounts', 'accounts.id', 'sites.account_id')
    .select(['sites.id', 'sites.account_id', 'sites.slug', 'accounts.plan', primaryHostname.as('domain')])
    .where('sites.status', '=', 'live')
    .where(
      'accounts.plan',
      'in',
      PLANS.filter((plan) => cadenceOf(plan) !== undefined),
    )
    .execute()
}

/**
 * The reports due at `now`: sites whose moment in the current period has come and that have no
 * report for that period yet.
 */
export async function dueReports(db: Db, sitesDomain: string, now: Date): Promise<DueReport[]> {
  const sites = await reportedSites(db)
  const candidates: DueReport[] = []
  for (const site of sites) {
    const cadence = cadenceOf(site.plan)
    const domain = site.domain ?? (site.slug ? `${site.slug}.${sitesDomain}` : null)
    if (!cadence || !domain || !site.account_id) continue
    const period = periodOf(cadence, now)
    const slot = slotOf(site.id, period)
    if (slot <= now) candidates.push({ accountId: site.account_id, siteId: site.id, domain, cadence, period: period.key, slot })
  }
  if (candidates.length === 0) return []
  const made = await db
    .selectFrom('site_audits')
    .select(['site_id', 'period'])
    .where('period', 'in', [...new Set(candidates.map((c) => c.period))])
    .where(
      'site_id',
      'in',
      candidates.map((c) => c.siteId),
    )
    .execute()
  const done = new Set(made.map((m) => `${m.site_id} ${m.period}`))
  return candidates.filter((c) => !done.has(`${c.siteId} ${c.period}`))
}

/** Queues every due report with its job; a report another pass queued meanwhile is skipped. Answers the queued audits. */
export async function queueDueReports(db: Db, sitesDomain: string, now: Date): Promise<AuditRow[]> {
  const queued: AuditRow[] = []
  for (const due of await dueReports(db, sitesDomain, now)) {
    const row = await db
      .transaction()
      .execute((trx) =>
        queueSiteAudit(trx, { accountId: due.accountId, siteId: due.siteId, domain: due.domain, trigger: due.cadence, period: due.period }),
      )
    if (row) queued.push(row)
  }
  return queued
}

/** A report that cannot be kept: the audit could not reach the site. Thrown so the job tries again. */
export class UnreachableSite extends Error {}

/** What a failed audit says to its reader: why the site could not be reached, never an internal error's text. */
function failureReason(error: unknown): string {
  return error instanceof UnreachableSite ? `The site could not be reached: ${error.message}` : 'The audit could not be completed'
}

/**
 * Runs one queued audit: the report, the row's result and seo.report.ready commit together. A
 * scheduled report audits as deep as the account's add-ons say, keeps nothing of a site it
 * could not reach (it throws, to be tried again), and mails the owner once.
 */
export async function runSiteAudit(deps: ReportDeps, auditId: string): Promise<void> {
  const { db } = deps
  const audit = await db.selectFrom('site_audits').selectAll().where('id', '=', auditId).executeTakeFirst()
  if (!audit || audit.state === 'failed') return
  const scheduled = audit.period !== null
  if (audit.state === 'queued') {
    const premium = scheduled && ((await entitlementsOf(db, audit.account_id))?.premiumReports ?? false)
    const report = await runAudit(deps.fetcher, audit.domain, premium)
    if (scheduled && !report.reachable) throw new UnreachableSite(report.findings[0]?.message ?? `${audit.domain} could not be reached`)
    const finished = await storeResult(deps, audit, report)
    if (!finished) return
    Object.assign(audit, finished)
  }
  if (scheduled && audit.state === 'done' && audit.mailed_at === null) await mailReport(deps, audit)
}

/** Keeps the report with the audit's result; undefined when another run finished the audit first. */
async function storeResult(deps: ReportDeps, audit: AuditRow, report: AuditReport): Promise<AuditRow | undefined> {
  const axes = { seo: report.axes.seo.score, aeo: report.axes.aeo.score, geo: report.axes.geo.score }
  return deps.db.transaction().execute(async (trx) => {
    const open = await trx
      .selectFrom('site_audits')
      .select('id')
      .where('id', '=', audit.id)
      .where('state', '=', 'queued')
      .forUpdate()
      .executeTakeFirst()
    if (!open) return undefined
    const stored = await saveReport(trx, report)
    const done = await trx
      .updateTable('site_audits')
      .set({ state: 'done', report_id: stored.id, score: report.score, axes: JSON.stringify(axes), finished_at: new Date() })
      .where('id', '=', audit.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    await recordEvent(trx, {
      accountId: audit.account_id,
      siteId: audit.site_id,
      type: 'seo.report.ready',
      data: {
        audit_id: audit.id,
        site_id: audit.site_id,
        domain: audit.domain,
        score: report.score,
        axes,
        url: `${deps.urls.api}/v1/sites/${audit.site_id}/audits/${audit.id}`,
      },
    })
    return done
  })
}

/** Marks an audit whose last try failed, so it reads `failed` instead of `queued` for ever. */
export async function markAuditFailed(db: Db, auditId: string, error: string): Promise<void> {
  await db
    .updateTable('site_audits')
    .set({ state: 'failed', error, finished_at: new Date() })
    .where('id', '=', auditId)
    .where('state', '=', 'queued')
    .execute()
}

/**
 * Mails a done report once: the row is marked before the mail goes out, and unmarked when sending
 * fails (the job's next try sends it). A process dying in between loses that mail rather than
 * sending it twice.
 */
async function mailReport(deps: ReportDeps, audit: AuditRow): Promise<void> {
  const claimed = await deps.db
    .updateTable('site_audits')
    .set({ mailed_at: new Date() })
    .where('id', '=', audit.id)
    .where('mailed_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  if (!claimed) return
  try {
    const to = await accountRecipient(deps.db, deps.keyring, audit.account_id)
    if (!to) return
    const t = translator(isLocale(to.language) ? to.language : 'en')
    await deps.mailer.send({ to: to.email, ...(await composeReportMail(deps, audit, t)) })
  } catch (error) {
    await deps.db.updateTable('site_audits').set({ mailed_at: null }).where('id', '=', audit.id).execute()
    throw error
  }
}

/** The owner's mail: the score, the change since the site's last report, the visitors of the period, the top three quick wins and the dashboard's link. */
export async function composeReportMail(
  deps: Pick<ReportDeps, 'db' | 'urls'>,
  audit: AuditRow,
  t: Translator = translator('en'),
): Promise<{ subject: string; text: string }> {
  const { db } = deps
  const [site, report, previous] = await Promise.all([
    db.selectFrom('sites').select('name').where('id', '=', audit.site_id).executeTakeFirst(),
    audit.report_id ? db.selectFrom('audit_reports').select('report').where('id', '=', audit.report_id).executeTakeFirst() : undefined,
    db
      .selectFrom('site_audits')
      .select(['score', 'finished_at'])
      .where('site_id', '=', audit.site_id)
      .where('state', '=', 'done')
      .where('id', '<>', audit.id)
      .where('finished_at', '<', audit.finished_at ?? new Date())
      .orderBy('finished_at', 'desc')
      .executeTakeFirst(),
  ])
  const score = audit.score ?? 0
  const axes = audit.axes as { seo: number; aeo: number; geo: number } | null
  const stored = report?.report as AuditReport | undefined
  const wins = (stored?.quick_wins ?? []).slice(0, 3)
  const pages = findingsByPage(stored)
  const change = (() => {
    if (!previous || previous.score === null) return t.t('mail.report.first')
    const delta = score - previous.score
    return t.t('mail.report.change', {
      way: delta === 0 ? 'same' : delta > 0 ? 'up' : 'down',
      by: Math.abs(delta),
      on: previous.finished_at ? previous.finished_at.toISOString().slice(0, 10) : 'none',
      before: previous.score,
    })
  })()
  const name = site?.name ?? audit.site_id
  // Beside the score, the visitors of the period the report covers: the last week, or 30 days.
  const statsDays = audit.trigger === 'monthly' ? 30 : 7
  const visits = await statsMailLines(
    db,
    audit.site_id,
    statsDays,
    (audit.finished_at ?? new Date()).toISOString().slice(0, 10),
    `${deps.urls.base}/app/sites/${audit.site_id}/stats?days=${statsDays}`,
    t,
  )
  const lines = [
    t.t('mail.report.ready', { cadence: audit.trigger, name, domain: audit.domain }),
    '',
    `${t.t('mail.report.score', { score })} ${change}`,
    ...(axes ? [t.t('mail.report.axes', { seo: axes.seo, aeo: axes.aeo, geo: axes.geo })] : []),
    '',
    ...visits,
    '',
    ...(wins.length
      ? [
          t.t('mail.report.wins'),
          ...wins.map((w, i) => t.t('mail.report.win', { n: i + 1, fix: w.fix, gain: w.gain, effort: t.t(effortKey(w.effort)) })),
        ]
      : [t.t('mail.report.noWins')]),
    '',
    ...(stored?.premium ? premiumLines(t, stored, pages) : []),
    t.t('mail.report.link', { url: `${deps.urls.base}/app/sites/${audit.site_id}/reports` }),
  ]
  return { subject: t.t('mail.report.subject', { domain: audit.domain, score }), text: `${lines.join('\n')}\n` }
}

/** PAGES_IN_MAIL pages of a premium report in the mail, with up to three findings each; the dashboard shows them all. */
const PAGES_IN_MAIL = 10

/** What the premium audit adds to the mail: how many pages it checked and their findings, page by page. */
function premiumLines(t: Translator, report: AuditReport, pages: PageFindings[]): string[] {
  const head = t.t('mail.report.premium', { pages: report.pages_checked })
  if (pages.length === 0) return [head, t.t('mail.report.premium.none'), '']
  const shown = pages.slice(0, PAGES_IN_MAIL)
  return [
    head,
    t.t('mail.report.premium.byPage'),
    ...shown.flatMap(({ page, findings }) => [
      `- ${page}`,
      ...findings.slice(0, 3).map((f) => `  * ${f.message}${f.evidence ? ` (${f.evidence})` : ''}`),
      ...(findings.length > 3 ? [`  * ${t.t('mail.report.premium.more', { n: findings.length - 3 })}`] : []),
    ]),
    ...(pages.length > shown.length ? [t.t('mail.report.premium.morePages', { n: pages.length - shown.length })] : []),
    '',
  ]
}

/** A quick win's effort (low, medium, high) as the mail and the page word it. */
export function effortKey(effort: string): MessageKey {
  return effort === 'low' ? 'reports.effort.low' : effort === 'high' ? 'reports.effort.high' : 'reports.effort.medium'
}

/** The next hourly pass after `from`. */
function nextHour(from: Date): Date {
  return new Date((Math.floor(from.getTime() / HOUR_MS) + 1) * HOUR_MS)
}

export function scheduleNextPass(db: Db, from = new Date()): Promise<string | undefined> {
  const at = nextHour(from)
  return enqueueJob(db, SCHEDULE_JOB, {}, { runAt: at, uniqueKey: at.toISOString(), maxAttempts: 5 })
}

/** Defines the audit, report and scheduling jobs on a runner (every instance runs them). */
export function defineReportJobs(jobs: JobRunner, deps: ReportDeps): void {
  const lastTry = (attempts: number, max: number) => attempts >= max
  jobs.define<{ audit_id: string }>(SITE_AUDIT_JOB, {
    maxAttempts: AUDIT_ATTEMPTS,
    handler: async (payload, { job }) => {
      try {
        await runSiteAudit(deps, payload.audit_id)
      } catch (error) {
        if (lastTry(job.attempts, AUDIT_ATTEMPTS)) await markAuditFailed(deps.db, payload.audit_id, 'The audit could not be completed')
        throw error
      }
    },
  })
  jobs.define<{ audit_id: string }>(REPORT_JOB, {
    maxAttempts: REPORT_ATTEMPTS,
    backoffMs: (attempt) => REPORT_RETRY_MS[Math.min(attempt, REPORT_RETRY_MS.length) - 1]!,
    handler: async (payload, { job }) => {
      try {
        await runSiteAudit(deps, payload.audit_id)
      } catch (error) {
        if (lastTry(job.attempts, REPORT_ATTEMPTS)) await markAuditFailed(deps.db, payload.audit_id, failureReason(error))
        throw error
      }
    },
  })
  jobs.define(SCHEDULE_JOB, {
    maxAttempts: 5,
    handler: async (_payload, { log }) => {
      await scheduleNextPass(deps.db)
      const queued = await queueDueReports(deps.db, deps.urls.sitesDomain, new Date())
      if (queued.length) log.info({ reports: queued.length }, 'scheduled SEO reports queued')
    },
  })
}

/**
 * Queues the reports due at `now` and runs them in this process, each tried up to the report
 * job's attempts at once (the admin CLI's `reports run-due`). Reports another instance is running
 * are not run twice: only the first to finish keeps its result, and the mail goes out once.
 */
export async function runDueReports(deps: ReportDeps, now: Date): Promise<Array<{ audit: AuditRow; error?: string }>> {
  const queued = await queueDueReports(deps.db, deps.urls.sitesDomain, now)
  const outcomes: Array<{ audit: AuditRow; error?: string }> = []
  for (const audit of queued) {
    let error: string | undefined
    for (let attempt = 1; attempt <= REPORT_ATTEMPTS; attempt++) {
      try {
        await runSiteAudit(deps, audit.id)
        error = undefined
        break
      } catch (failure) {
        deps.log.warn({ err: failure, audit: audit.id, attempt }, 'a due SEO report failed')
        error = failureReason(failure)
      }
    }
    if (error) await markAuditFailed(deps.db, audit.id, error)
    const row = await deps.db.selectFrom('site_audits').selectAll().where('id', '=', audit.id).executeTakeFirstOrThrow()
    outcomes.push(error ? { audit: row, error } : { audit: row })
  }
  return outcomes
}
