import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { applyHandoffEvent, HandoffTransitionError } from './handoff.ts'
import { withTransaction } from '../transaction.ts'
import type { HandoffState } from '../../infra/tables.ts'
import type { Locale } from '../locales.ts'
import type { Paging } from '../paging.ts'

/** Sealing context of transcript messages: a message is bound to its session. */
export const messageContext = (sessionId: string) => `agent_messages.text:${sessionId}`

/**
 * The operator side of a handoff, for the dashboard and the REST API to call: take a requested
 * conversation, post into it while active, close it. Its HTTP surface comes with the REST API.
 */

export interface HandoffQueueItem {
  sessionId: string
  state: HandoffState
  since: Date | null
}

/** Conversations of a site waiting for an operator or held by one, oldest first. */
export async function listHandoffs(db: Db, siteId: string): Promise<HandoffQueueItem[]> {
  const rows = await db
    .selectFrom('agent_sessions')
    .select(['id', 'handoff_state', 'handoff_updated_at'])
    .where('site_id', '=', siteId)
    .where('handoff_state', 'in', ['requested', 'active'])
    .orderBy('handoff_updated_at')
    .execute()
  return rows.map((r) => ({ sessionId: r.id, state: r.handoff_state, since: r.handoff_updated_at }))
}

export function takeHandoff(db: Db, sessionId: string): Promise<HandoffState> {
  return applyHandoffEvent(db, sessionId, 'operator_took')
}

export function resolveHandoff(db: Db, sessionId: string): Promise<HandoffState> {
  return applyHandoffEvent(db, sessionId, 'operator_closed')
}

/** Posts an operator message into the transcript; only while the operator holds the conversation. */
export async function postOperatorMessage(db: Db, keyring: Keyring, sessionId: string, text: string): Promise<void> {
  const body = text.trim()
  if (body.length === 0 || body.length > 2000) throw new RangeError('an operator message has 1 to 2000 characters')
  await withTransaction(db, async (trx) => {
    // Lock the session row so the handoff cannot be closed between the check and the insert.
    const session = await trx
      .selectFrom('agent_sessions')
      .select('handoff_state')
      .where('id', '=', sessionId)
      .forUpdate()
      .executeTakeFirst()
    if (session?.handoff_state !== 'active') throw new HandoffTransitionError('operator_took', session?.handoff_state)
    await trx
      .insertInto('agent_messages')
      .values({ session_id: sessionId, role: 'operator', text_sealed: keyring.seal(body, messageContext(sessionId)), turn_id: null })
      .execute()
    await trx.updateTable('agent_sessions').set({ last_active_at: new Date() }).where('id', '=', sessionId).execute()
  })
}

// The account's conversations, as the REST API and the dashboard see them.

export interface ConversationMessage {
  role: 'visitor' | 'assistant' | 'operator'
  text: string
  at: string
}

export interface Conversation {
  session_id: string
  site_id: string
  locale: Locale
  handoff: { state: HandoffState; since: string | null }
  created_at: string
  last_active_at: string
}

function accountSessions(db: Db, accountId: string) {
  return db
    .selectFrom('agent_sessions as s')
    .innerJoin('sites', 'sites.id', 's.site_id')
    .select(['s.id', 's.site_id', 's.locale', 's.handoff_state', 's.handoff_updated_at', 's.created_at', 's.last_active_at'])
    .where('sites.account_id', '=', accountId)
}

type SessionRow = Awaited<ReturnType<ReturnType<typeof accountSessions>['executeTakeFirstOrThrow']>>

function conversationView(row: SessionRow): Conversation {
  return {
    session_id: row.id,
    site_id: row.site_id,
    locale: row.locale,
    handoff: { state: row.handoff_state, since: row.handoff_updated_at?.toISOString() ?? null },
    created_at: row.created_at.toISOString(),
    last_active_at: row.last_active_at.toISOString(),
  }
}

export interface ConversationFilter {
  handoff?: HandoffState | undefined
  siteId?: string | undefined
}

/** Conversations of the account's sites: those waiting for or held by an operator first when filtered by handoff, else the most recent first. */
export async function listAccountConversations(
  db: Db,
  accountId: string,
  filter: ConversationFilter,
  page: Paging,
): Promise<{ items: Conversation[]; total: number }> {
  let query = accountSessions(db, accountId)
  if (filter.handoff !== undefined) query = query.where('s.handoff_state', '=', filter.handoff)
  if (filter.siteId !== undefined) query = query.where('s.site_id', '=', filter.siteId)
  const ordered = filter.handoff === undefined ? query.orderBy('s.last_active_at', 'desc') : query.orderBy('s.handoff_updated_at')
  const [rows, count] = await Promise.all([
    ordered.orderBy('s.id').limit(page.limit).offset(page.offset).execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return { items: rows.map(conversationView), total: Number(count.n) }
}

export async function getAccountConversation(db: Db, accountId: string, sessionId: string): Promise<Conversation | undefined> {
  const row = await accountSessions(db, accountId).where('s.id', '=', sessionId).executeTakeFirst()
  return row && conversationView(row)
}

/** The last `limit` messages of a conversation in order, texts opened. */
export async function conversationMessages(db: Db, keyring: Keyring, sessionId: string, limit = 200): Promise<ConversationMessage[]> {
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
