import { sql } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { LeadSource } from '../../infra/tables.ts'
import { messageContext } from '../leads/conversations.ts'
import { openLead } from '../leads/leads.ts'
import type { NoticeKind } from './settings.ts'

/** The job that sends the mails at once for one notice (one mail job per person). */
export const NOTICE_JOB = 'notify.notice'

export function noticeKindOf(source: LeadSource): NoticeKind {
  return source === 'contact_form' ? 'contact_form' : 'assistant_lead'
}

/**
 * Records that visitors wrote, and queues the mails at once. Pass the transaction of the lead (or
 * the request for a person), so the notice and its job commit with it: the visitor's request
 * waits for no mail server.
 */
export async function recordNotice(
  db: Db,
  notice: { siteId: string; kind: NoticeKind; leadId?: string | undefined; sessionId?: string | undefined },
): Promise<string | undefined> {
  const id = newId('ntc')
  const row = await db
    .insertInto('notices')
    .columns(['id', 'account_id', 'site_id', 'kind', 'lead_id', 'session_id'])
    .expression((eb) =>
      eb
        .selectFrom('sites')
        .select([
          sql.val(id).as('id'),
          'account_id',
          'id as site_id',
          sql.val(notice.kind).as('kind'),
          sql.val(notice.leadId ?? null).as('lead_id'),
          sql.val(notice.sessionId ?? null).as('session_id'),
        ])
        .where('id', '=', notice.siteId)
        // The platform's own site belongs to no account: nobody to tell.
        .where('account_id', 'is not', null),
    )
    .returning('id')
    .executeTakeFirst()
  if (!row) return undefined
  await enqueueJob(db, NOTICE_JOB, { notice_id: id })
  return id
}

/** What a mail tells of one notice, opened from its sealed lead or transcript for the mail only. */
export interface NoticeContent {
  id: string
  accountId: string
  kind: NoticeKind
  siteName: string
  createdAt: Date
  /** The visitor's name, address and words, as far as they are known. */
  name: string | null
  email: string | null
  text: string | null
  sessionId: string | null
}

/** The notices' contents; a notice whose lead was erased meanwhile is left out. */
export async function noticeContents(db: Db, keyring: Keyring, ids: readonly string[]): Promise<NoticeContent[]> {
  if (ids.length === 0) return []
  const rows = await db
    .selectFrom('notices')
    .innerJoin('sites', 'sites.id', 'notices.site_id')
    .select([
      'notices.id',
      'notices.account_id',
      'notices.kind',
      'notices.lead_id',
      'notices.session_id',
      'notices.created_at',
      'sites.name',
    ])
    .where('notices.id', 'in', ids)
    .orderBy('notices.created_at')
    .orderBy('notices.id')
    .execute()
  const contents: NoticeContent[] = []
  for (const row of rows) {
    const base = {
      id: row.id,
      accountId: row.account_id,
      kind: row.kind,
      siteName: row.name,
      createdAt: row.created_at,
      sessionId: row.session_id,
    }
    if (row.lead_id) {
      const lead = await db.selectFrom('leads').selectAll().where('id', '=', row.lead_id).executeTakeFirst()
      if (!lead) continue
      const opened = openLead(keyring, lead)
      contents.push({ ...base, name: opened.name, email: opened.email, text: opened.note })
    } else if (row.session_id) {
      contents.push({
        ...base,
        name: null,
        email: await sessionLeadEmail(db, keyring, row.session_id),
        text: await lastVisitorWords(db, keyring, row.session_id),
      })
    }
  }
  return contents
}

/** The visitor's last message in a conversation: what they asked a person for. */
async function lastVisitorWords(db: Db, keyring: Keyring, sessionId: string): Promise<string | null> {
  const row = await db
    .selectFrom('agent_messages')
    .select('text_sealed')
    .where('session_id', '=', sessionId)
    .where('role', '=', 'visitor')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? keyring.open(row.text_sealed, messageContext(sessionId)) : null
}

/** The address a visitor gave in the conversation (a lead of the session), if any. */
async function sessionLeadEmail(db: Db, keyring: Keyring, sessionId: string): Promise<string | null> {
  const lead = await db
    .selectFrom('leads')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  return lead ? openLead(keyring, lead).email : null
}
