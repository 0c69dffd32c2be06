import type { ExpressionBuilder } from 'kysely'
import type { Logger } from 'pino'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { Database } from '../../infra/tables.ts'
import { enqueueJob, type NamedJob } from '../../infra/jobs.ts'
import type { Mailer } from '../../infra/mailer.ts'
import { planEntitlements } from '../accounts/entitlements.ts'
import { accountRecipient } from '../accounts/members.ts'
import { chooseLanguage, translator } from '../i18n/translator.ts'
import { PLANS, type Plan } from '../accounts/plans.ts'
import { periodOf } from '../seo-reports/schedule.ts'
import { statsMailLines } from './summary.ts'

export const WEEKLY_SUMMARY_JOB = 'stats.weekly-summary'

export interface WeeklySummaryDeps {
  db: Db
  mailer: Mailer
  keyring: Keyring
  log: Logger
  /** BASE_URL: the dashboard's links. */
  baseUrl: string
}

/** Whether an account on `plan` can have the weekly summary: its plan sends no SEO report, which carries the figures already. */
export function summaryOffered(plan: Plan): boolean {
  return planEntitlements(plan).seoReports === 'none'
}

/** The plans whose owners may ask for the weekly summary. */
const OFFERED = PLANS.filter(summaryOffered)

export async function weeklySummaryWanted(db: Db, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('weekly_stats_mail').where('id', '=', accountId).executeTakeFirst()
  return row?.weekly_stats_mail ?? false
}

export async function setWeeklySummary(db: Db, accountId: string, wanted: boolean): Promise<void> {
  await db.updateTable('accounts').set({ weekly_stats_mail: wanted }).where('id', '=', accountId).execute()
}

/**
 * Mails each account that asked for it, on a plan without SEO reports, the visitors of its live
 * sites in the seven days before `now`: once per ISO week, the week claimed on the account before
 * the mail goes out and given back when sending fails (the job's next try sends it). Answers how
 * many mails went out.
 */
export async function sendWeeklySummaries(deps: WeeklySummaryDeps, now = new Date()): Promise<number> {
  const { db } = deps
  if (OFFERED.length === 0) return 0
  const week = periodOf('weekly', now).key
  const today = now.toISOString().slice(0, 10)
  const notSentYet = (eb: ExpressionBuilder<Database, 'accounts'>) =>
    eb.or([eb('weekly_stats_mailed', 'is', null), eb('weekly_stats_mailed', '<>', week)])
  const accounts = await db
    .selectFrom('accounts')
    .select('id')
    .where('weekly_stats_mail', '=', true)
    .where('plan', 'in', OFFERED)
    .where('deletion_requested_at', 'is', null)
    .where('erased_at', 'is', null)
    .where(notSentYet)
    .orderBy('id')
    .execute()
  let sent = 0
  for (const { id } of accounts) {
    const sites = await db
      .selectFrom('sites')
      .select(['id', 'name'])
      .where('account_id', '=', id)
      .where('status', '=', 'live')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    if (sites.length === 0) continue
    const claimed = await db
      .updateTable('accounts')
      .set({ weekly_stats_mailed: week })
      .where('id', '=', id)
      .where(notSentYet)
      .returning('id')
      .executeTakeFirst()
    if (!claimed) continue
    try {
      const recipient = await accountRecipient(db, deps.keyring, id)
      if (!recipient) continue
      // In the owner's language (their setting; English until they choose one).
      const t = translator(chooseLanguage({ setting: recipient.language }))
      const parts: string[] = []
      for (const site of sites)
        parts.push(site.name, ...(await statsMailLines(db, site.id, 7, today, `${deps.baseUrl}/app/sites/${site.id}/stats?days=7`, t)), '')
      const text = [
        t.t('stats.weeklyMail.head', { sites: sites.length }),
        '',
        ...parts,
        t.t('stats.weeklyMail.foot', { url: `${deps.baseUrl}/app/stats` }),
      ].join('\n')
      await deps.mailer.send({ to: recipient.email, subject: t.t('stats.weeklyMail.subject', { week }), text: `${text}\n` })
      sent++
    } catch (error) {
      await db
        .updateTable('accounts')
        .set({ weekly_stats_mailed: null })
        .where('id', '=', id)
        .where('weekly_stats_mailed', '=', week)
        .execute()
      deps.log.warn({ err: error, account: id }, 'the weekly visitor summary could not be sent; tried again with the next run')
      throw error
    }
  }
  return sent
}

/** Mondays at 07:00 UTC: the week before is over, and the mail is there when the working day starts. */
function scheduleNext(db: Db, from = new Date()): Promise<string | undefined> {
  const at = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), 7))
  at.setUTCDate(at.getUTCDate() + ((8 - at.getUTCDay()) % 7))
  if (at <= from) at.setUTCDate(at.getUTCDate() + 7)
  return enqueueJob(db, WEEKLY_SUMMARY_JOB, {}, { runAt: at, uniqueKey: at.toISOString().slice(0, 10), maxAttempts: 5 })
}

/** The weekly visitor summary, one run a week whatever the number of instances. */
export function weeklySummaryJob(deps: WeeklySummaryDeps): NamedJob {
  return {
    name: WEEKLY_SUMMARY_JOB,
    definition: {
      handler: async (_payload, { log }) => {
        await scheduleNext(deps.db)
        const sent = await sendWeeklySummaries(deps)
        log.info({ sent }, 'weekly visitor summaries sent')
      },
    },
    scheduleNext: () => scheduleNext(deps.db),
  }
}
