import { newId, sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { LeadSource, LeadStatus, LeadsTable } from '../../infra/tables.ts'
import type { Selectable } from 'kysely'
import { recordLeadReceived } from '../webhooks/events.ts'
import type { Locale } from '../locales.ts'
import { withTransaction } from '../transaction.ts'
import { countConversion } from '../stats/tally.ts'
import type { Paging } from '../paging.ts'
import { noticeKindOf, recordNotice } from '../notifications/notices.ts'

export interface NewLead {
  siteId: string
  sessionId: string | null
  email: string
  name?: string | undefined
  note?: string | undefined
  consent: { version: string; digest: string; locale: Locale; acceptedAt: Date }
  source: LeadSource
}

export interface Lead {
  id: string
  siteId: string
  sessionId: string | null
  email: string
  name: string | null
  note: string | null
  consent: { version: string; digest: string; locale: Locale; acceptedAt: Date }
  source: LeadSource
  status: LeadStatus
  createdAt: Date
}

/** A lead's status (DESIGN.md 17): new until someone answers it or puts it away. */
export const LEAD_STATUSES = ['new', 'answered', 'archived'] as const satisfies readonly LeadStatus[]
export type { LeadStatus }

export function isLeadStatus(value: unknown): value is LeadStatus {
  return typeof value === 'string' && (LEAD_STATUSES as readonly string[]).includes(value)
}

// Each sealed column is bound to its row and column, so a ciphertext cannot be moved elsewhere.
const context = (leadId: string, column: string) => `leads.${column}:${leadId}`

/**
 * When a submission is one already stored: in a chat, the same email again from the same session;
 * from a contact form, which has no session, the same email with the same name and message (the
 * form sent twice). A returning visitor's new message is a new lead.
 */
function dedupeKey(lead: NewLead): string {
  const base = `${lead.source}\n${lead.sessionId ?? ''}\n${lead.email.trim().toLowerCase()}`
  return sha256Hex(lead.sessionId ? base : `${base}\n${lead.name ?? ''}\n${lead.note ?? ''}`)
}

/**
 * Stores a lead with its personal fields sealed and records lead.received in the same
 * transaction. Answers the new lead's id, or undefined when the same lead was already stored (a
 * retried submission), which fires nothing new.
 */
export async function insertLead(db: Db, keyring: Keyring, lead: NewLead): Promise<string | undefined> {
  const id = newId('lead')
  return withTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('leads')
      .values({
        id,
        site_id: lead.siteId,
        session_id: lead.sessionId,
        email_sealed: keyring.seal(lead.email, context(id, 'email')),
        name_sealed: lead.name ? keyring.seal(lead.name, context(id, 'name')) : null,
        note_sealed: lead.note ? keyring.seal(lead.note, context(id, 'note')) : null,
        dedupe_key: dedupeKey(lead),
        consent_version: lead.consent.version,
        consent_digest: lead.consent.digest,
        consent_locale: lead.consent.locale,
        consent_accepted_at: lead.consent.acceptedAt,
        source: lead.source,
      })
      .onConflict((oc) => oc.columns(['site_id', 'dedupe_key']).doNothing())
      .returning('id')
      .executeTakeFirst()
    if (row) await countConversion(trx, lead.siteId)
    // The account's people hear of it by mail, sent by a job once this commits.
    if (row) await recordNotice(trx, { siteId: lead.siteId, kind: noticeKindOf(lead.source), leadId: row.id })
    if (row)
      await recordLeadReceived(trx, keyring, {
        id: row.id,
        siteId: lead.siteId,
        source: lead.source,
        email: lead.email,
        name: lead.name,
        note: lead.note,
      })
    return row?.id
  })
}

/** A site's leads with their personal fields opened, newest first. */
export async function listLeads(db: Db, keyring: Keyring, siteId: string): Promise<Lead[]> {
  const rows = await db.selectFrom('leads').selectAll().where('site_id', '=', siteId).orderBy('created_at', 'desc').orderBy('id').execute()
  return rows.map((row) => openLead(keyring, row))
}

/** A stored lead with its personal fields opened; only answers ever hold them in clear. */
export function openLead(keyring: Keyring, row: Selectable<LeadsTable>): Lead {
  return {
    id: row.id,
    siteId: row.site_id,
    sessionId: row.session_id,
    email: keyring.open(row.email_sealed, context(row.id, 'email')),
    name: row.name_sealed ? keyring.open(row.name_sealed, context(row.id, 'name')) : null,
    note: row.note_sealed ? keyring.open(row.note_sealed, context(row.id, 'note')) : null,
    consent: { version: row.consent_version, digest: row.consent_digest, locale: row.consent_locale, acceptedAt: row.consent_accepted_at },
    source: row.source,
    status: row.status,
    createdAt: row.created_at,
  }
}

// The account's leads, as the REST API sees them.

export interface LeadFilter {
  siteId?: string | undefined
  since?: Date | undefined
  status?: LeadStatus | undefined
}

function accountLeads(db: Db, accountId: string, filter: LeadFilter = {}) {
  let query = db.selectFrom('leads').innerJoin('sites', 'sites.id', 'leads.site_id').where('sites.account_id', '=', accountId)
  if (filter.siteId !== undefined) query = query.where('leads.site_id', '=', filter.siteId)
  if (filter.since !== undefined) query = query.where('leads.created_at', '>=', filter.since)
  if (filter.status !== undefined) query = query.where('leads.status', '=', filter.status)
  return query
}

export async function listAccountLeads(
  db: Db,
  keyring: Keyring,
  accountId: string,
  filter: LeadFilter,
  page: Paging,
): Promise<{ items: Lead[]; total: number }> {
  const [rows, count] = await Promise.all([
    accountLeads(db, accountId, filter)
      .selectAll('leads')
      .orderBy('leads.created_at', 'desc')
      .orderBy('leads.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    accountLeads(db, accountId, filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return { items: rows.map((row) => openLead(keyring, row)), total: Number(count.n) }
}

export async function getAccountLead(db: Db, keyring: Keyring, accountId: string, leadId: string): Promise<Lead | undefined> {
  const row = await accountLeads(db, accountId).selectAll('leads').where('leads.id', '=', leadId).executeTakeFirst()
  return row && openLead(keyring, row)
}

/**
 * Sets the status of one of the account's leads: the one change every interface makes (the
 * dashboard, /v1, GraphQL, MCP). The row is locked first and `check` sees it as it stands (an
 * If-Match), so two changes at once cannot pass the same check. Undefined for a lead the account
 * does not have.
 */
export async function setLeadStatus(
  db: Db,
  keyring: Keyring,
  accountId: string,
  leadId: string,
  status: LeadStatus,
  check: (current: Lead) => void = () => {},
): Promise<Lead | undefined> {
  return withTransaction(db, async (trx) => {
    const row = await accountLeads(trx, accountId).selectAll('leads').where('leads.id', '=', leadId).forUpdate('leads').executeTakeFirst()
    if (!row) return undefined
    check(openLead(keyring, row))
    if (row.status === status) return openLead(keyring, row)
    const changed = await trx.updateTable('leads').set({ status }).where('id', '=', leadId).returningAll().executeTakeFirstOrThrow()
    return openLead(keyring, changed)
  })
}

export async function deleteAccountLead(db: Db, accountId: string, leadId: string): Promise<boolean> {
  const gone = await db
    .deleteFrom('leads')
    .where('id', '=', leadId)
    .where('site_id', 'in', (eb) => eb.selectFrom('sites').select('id').where('account_id', '=', accountId))
    .executeTakeFirst()
  return gone.numDeletedRows > 0n
}

/** Cuts the link between leads and an erased session; the leads stay with their site. */
export async function detachLeadsFromSession(db: Db, sessionId: string): Promise<void> {
  await db.updateTable('leads').set({ session_id: null }).where('session_id', '=', sessionId).execute()
}

/** How many contact-form messages the site took since `since`, and when the oldest of them came (the per-site hourly cap). */
export async function contactMessagesSince(db: Db, siteId: string, since: Date): Promise<{ count: number; oldest: Date | undefined }> {
  const row = await db
    .selectFrom('leads')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('site_id', '=', siteId)
    .where('source', '=', 'contact_form')
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow()
  return { count: Number(row.n), oldest: row.oldest ? new Date(row.oldest as unknown as string) : undefined }
}
