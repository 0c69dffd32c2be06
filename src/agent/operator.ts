import type { Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { applyHandoffEvent, HandoffTransitionError } from './handoff.ts'
import type { HandoffState } from './schemas.ts'
import { messageContext } from './sessions.ts'

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
  await db.transaction().execute(async (trx) => {
    // Lock the session row so the handoff cannot be closed between the check and the insert.
    const session = await trx.selectFrom('agent_sessions').select('handoff_state').where('id', '=', sessionId).forUpdate().executeTakeFirst()
    if (session?.handoff_state !== 'active') throw new HandoffTransitionError('operator_took', session?.handoff_state)
    await trx
      .insertInto('agent_messages')
      .values({ session_id: sessionId, role: 'operator', text_sealed: keyring.seal(body, messageContext(sessionId)), turn_id: null })
      .execute()
    await trx.updateTable('agent_sessions').set({ last_active_at: new Date() }).where('id', '=', sessionId).execute()
  })
}
