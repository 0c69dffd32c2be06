import type { Selectable } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { enqueueJob } from '../../infra/jobs.ts'
import type { EventsTable } from '../../infra/tables.ts'

/** The event types a webhook endpoint can receive (INTERFACE.md 6.2). */
export const EVENT_TYPES = [
  'site.published',
  'lead.received',
  'seo.report.ready',
  'backlink.detected',
  'social.posted',
  'account.plan_changed',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** The job that turns one stored event into a delivery per subscribed endpoint. */
export const FANOUT_JOB = 'webhook.fanout'

/** Top-level data fields that are personal data: stored sealed, opened only to sign and send. */
const PERSONAL_FIELDS: ReadonlySet<string> = new Set(['email', 'name', 'note', 'phone'])

export interface NewEvent {
  accountId: string
  siteId?: string | null
  type: EventType
  data: Record<string, unknown>
}

export interface StoredEvent {
  id: string
  accountId: string
  siteId: string | null
  type: EventType
  /** With its personal fields opened. */
  data: Record<string, unknown>
  createdAt: Date
}

const personalContext = (eventId: string) => `events.personal:${eventId}`

/**
 * Writes an event to the outbox and queues its fan-out. Pass the transaction of the change that
 * causes the event, so both commit or neither does. Personal fields of `data` are sealed with
 * `keyring`; an event carrying them without a keyring is refused rather than stored in clear.
 */
export async function recordEvent(db: Db, event: NewEvent, keyring?: Keyring): Promise<string> {
  const id = newId('evt')
  const plain: Record<string, unknown> = {}
  const personal: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(event.data)) (PERSONAL_FIELDS.has(key) ? personal : plain)[key] = value
  const hasPersonal = Object.keys(personal).length > 0
  if (hasPersonal && !keyring) throw new Error(`event ${event.type} carries personal data but no keyring was given to seal it`)
  await db
    .insertInto('events')
    .values({
      id,
      account_id: event.accountId,
      site_id: event.siteId ?? null,
      type: event.type,
      data: JSON.stringify(plain),
      personal_sealed: hasPersonal ? keyring!.seal(JSON.stringify(personal), personalContext(id)) : null,
    })
    .execute()
  await enqueueJob(db, FANOUT_JOB, { event_id: id })
  return id
}

export function openEvent(keyring: Keyring, row: Selectable<EventsTable>): StoredEvent {
  const personal = row.personal_sealed
    ? (JSON.parse(keyring.open(row.personal_sealed, personalContext(row.id))) as Record<string, unknown>)
    : {}
  return {
    id: row.id,
    accountId: row.account_id,
    siteId: row.site_id,
    type: row.type as EventType,
    data: { ...row.data, ...personal },
    createdAt: row.created_at,
  }
}

/** The body every delivery of an event sends (Standard Webhooks): `{type, timestamp, data}`. */
export function eventBody(event: StoredEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data })
}

export interface ReceivedLead {
  id: string
  siteId: string
  source: string
  email: string
  name?: string | undefined
  note?: string | undefined
}

/**
 * lead.received: a new lead of a site (the sales assistant's and the contact form's). Sites
 * without an account (the platform's own) have no subscribers and record nothing.
 */
export async function recordLeadReceived(db: Db, keyring: Keyring, lead: ReceivedLead): Promise<string | undefined> {
  const site = await db.selectFrom('sites').select('account_id').where('id', '=', lead.siteId).executeTakeFirst()
  if (!site?.account_id) return undefined
  return recordEvent(
    db,
    {
      accountId: site.account_id,
      siteId: lead.siteId,
      type: 'lead.received',
      data: {
        lead_id: lead.id,
        site_id: lead.siteId,
        source: lead.source,
        email: lead.email,
        name: lead.name ?? null,
        note: lead.note ?? null,
        received_at: new Date().toISOString(),
      },
    },
    keyring,
  )
}
