import { newId, sha256Hex, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import type { Locale } from './tables.ts'

export interface NewLead {
  siteId: string
  sessionId: string | null
  email: string
  name?: string | undefined
  note?: string | undefined
  consent: { version: string; digest: string; locale: Locale; acceptedAt: Date }
  source: 'assistant'
}

export interface Lead {
  id: string
  siteId: string
  sessionId: string | null
  email: string
  name: string | null
  note: string | null
  consent: { version: string; digest: string; locale: Locale; acceptedAt: Date }
  source: string
  createdAt: Date
}

// Each sealed column is bound to its row and column, so a ciphertext cannot be moved elsewhere.
const context = (leadId: string, column: string) => `leads.${column}:${leadId}`

/** The same visitor submitting the same email again from one session is one lead, not two. */
function dedupeKey(lead: NewLead): string {
  return sha256Hex(`${lead.source}\n${lead.sessionId ?? ''}\n${lead.email.trim().toLowerCase()}`)
}

/**
 * Stores a lead with its personal fields sealed. Answers the new lead's id, or undefined when the
 * same lead was already stored (a retried submission).
 */
export async function insertLead(db: Db, keyring: Keyring, lead: NewLead): Promise<string | undefined> {
  const id = newId('lead')
  const row = await db
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
  return row?.id
}

/** A site's leads with their personal fields opened, newest first. */
export async function listLeads(db: Db, keyring: Keyring, siteId: string): Promise<Lead[]> {
  const rows = await db.selectFrom('leads').selectAll().where('site_id', '=', siteId).orderBy('created_at', 'desc').orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id,
    siteId: row.site_id,
    sessionId: row.session_id,
    email: keyring.open(row.email_sealed, context(row.id, 'email')),
    name: row.name_sealed ? keyring.open(row.name_sealed, context(row.id, 'name')) : null,
    note: row.note_sealed ? keyring.open(row.note_sealed, context(row.id, 'note')) : null,
    consent: { version: row.consent_version, digest: row.consent_digest, locale: row.consent_locale, acceptedAt: row.consent_accepted_at },
    source: row.source,
    createdAt: row.created_at,
  }))
}

/** Cuts the link between leads and an erased session; the leads stay with their site. */
export async function detachLeadsFromSession(db: Db, sessionId: string): Promise<void> {
  await db.updateTable('leads').set({ session_id: null }).where('session_id', '=', sessionId).execute()
}
