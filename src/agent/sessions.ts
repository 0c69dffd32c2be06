import { hash, timingSafeEqual } from 'node:crypto'
import { sql } from 'kysely'
import { newId, randomToken, safeEqual, sha256Hex, type Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { detachLeadsFromSession } from '../domain/leads/leads.ts'
import type { SiteSettings } from '../domain/sites/settings.ts'
import type { SiteStatus } from '../infra/tables.ts'
import type { Locale } from '../domain/locales.ts'
import type { AgentMessage, HandoffState } from './schemas.ts'
import { messageContext } from '../domain/leads/conversations.ts'

/** A session as the routes need it: the session row joined with what its site says about the assistant. */
export interface SessionContext {
  id: string
  siteId: string
  locale: Locale
  handoff: HandoffState
  siteName: string
  siteStatus: SiteStatus
  siteSettings: SiteSettings
  siteDefaultLocale: Locale
}

export interface CreatedSession {
  id: string
  token: string
}

export async function createSession(db: Db, siteId: string, locale: Locale): Promise<CreatedSession> {
  const id = newId('ag')
  const token = randomToken(32)
  await db
    .insertInto('agent_sessions')
    .values({ id, token_hash: sha256Hex(token), site_id: siteId, locale, handoff_updated_at: null })
    .execute()
  return { id, token }
}

/**
 * The session for a capability, or undefined. A wrong token and an unknown id look the same to the
 * caller; the token's hash is compared in constant time.
 */
export async function findSession(db: Db, sessionId: string, token: string): Promise<SessionContext | undefined> {
  const row = await db
    .selectFrom('agent_sessions as s')
    .innerJoin('sites', 'sites.id', 's.site_id')
    .select([
      's.id',
      's.token_hash',
      's.site_id',
      's.locale',
      's.handoff_state',
      'sites.name',
      'sites.status',
      'sites.settings',
      'sites.default_locale',
    ])
    .where('s.id', '=', sessionId)
    .executeTakeFirst()
  const presented = sha256Hex(token)
  if (!row) {
    safeEqual(presented, presented)
    return undefined
  }
  if (!safeEqual(presented, row.token_hash)) return undefined
  return {
    id: row.id,
    siteId: row.site_id,
    locale: row.locale,
    handoff: row.handoff_state,
    siteName: row.name,
    siteStatus: row.status,
    siteSettings: row.settings,
    siteDefaultLocale: row.default_locale,
  }
}

/** The transcript in order, texts opened. */
export async function loadTranscript(db: Db, keyring: Keyring, sessionId: string, limit = 200): Promise<AgentMessage[]> {
  const rows = await db
    .selectFrom('agent_messages')
    .select(['role', 'text_sealed', 'created_at'])
    .where('session_id', '=', sessionId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  const context = messageContext(sessionId)
  return rows
    .reverse()
    .map((row) => ({ role: row.role, text: keyring.open(row.text_sealed, context), at: new Date(row.created_at).toISOString() }))
}

/**
 * Erases a session with its transcript, turns and events (cascading), in one transaction. Leads
 * given in the session stay with the site as its business records, their link to the session cut.
 */
export async function eraseSession(db: Db, sessionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await detachLeadsFromSession(trx, sessionId)
    await trx.deleteFrom('agent_sessions').where('id', '=', sessionId).execute()
  })
}

/** Aggregates an interaction event per session and type: repeats only count, so storage stays bounded. */
export async function recordEvent(db: Db, sessionId: string, type: string): Promise<void> {
  await db
    .insertInto('agent_events')
    .values({ session_id: sessionId, type })
    .onConflict((oc) => oc.columns(['session_id', 'type']).doUpdateSet({ count: sql`agent_events.count + 1`, last_at: sql`now()` }))
    .execute()
}

/**
 * A short-lived view of sessions this process has verified, so that a chat turn needs one round
 * trip instead of two. Only the token hash, locale and site are immutable; everything that can
 * change (handoff state, site settings) is re-checked by the statement that stores the turn, which
 * refuses to store an answer computed from a stale view. Bounded, and per process only.
 */
export class SessionCache {
  /** The token's SHA-256 is kept as bytes: a turn compares them without formatting hex. */
  readonly #entries = new Map<string, { view: SessionContext; tokenHash: Buffer; until: number }>()
  readonly #ttlMs: number
  readonly #max: number

  constructor(ttlMs = 30_000, max = 20_000) {
    this.#ttlMs = ttlMs
    this.#max = max
  }

  /** The cached view when the token matches (compared in constant time) and the entry is fresh. */
  get(sessionId: string, token: string): SessionContext | undefined {
    const entry = this.#entries.get(sessionId)
    if (!entry) return undefined
    if (entry.until < Date.now()) {
      this.#entries.delete(sessionId)
      return undefined
    }
    return timingSafeEqual(hash('sha256', token, 'buffer'), entry.tokenHash) ? entry.view : undefined
  }

  set(view: SessionContext, token: string): void {
    if (this.#entries.size >= this.#max) {
      // Drop the oldest tenth: Map iteration order is insertion order.
      let drop = Math.ceil(this.#max / 10)
      for (const key of this.#entries.keys()) {
        this.#entries.delete(key)
        if (--drop === 0) break
      }
    }
    this.#entries.delete(view.id)
    this.#entries.set(view.id, { view, tokenHash: hash('sha256', token, 'buffer'), until: Date.now() + this.#ttlMs })
  }

  delete(sessionId: string): void {
    this.#entries.delete(sessionId)
  }
}
