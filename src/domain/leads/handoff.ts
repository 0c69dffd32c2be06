import { sql } from 'kysely'
import type { Db } from '../../infra/db.ts'
import type { HandoffState } from '../../infra/tables.ts'

/**
 * The handoff state machine (DESIGN.md 6):
 *   none → requested       the visitor asks for a person (site offers handoff)
 *   resolved → requested   asked again after an earlier handoff was closed
 *   requested → active     an operator takes the conversation; the assistant falls silent
 *   requested → resolved   an operator closes the request without taking it
 *   active → resolved      the operator closes the conversation; the assistant answers again
 */
export type HandoffEvent = 'visitor_requested' | 'operator_took' | 'operator_closed'

const transitions: Record<HandoffEvent, { from: readonly HandoffState[]; to: HandoffState }> = {
  visitor_requested: { from: ['none', 'resolved'], to: 'requested' },
  operator_took: { from: ['requested'], to: 'active' },
  operator_closed: { from: ['requested', 'active'], to: 'resolved' },
}

/** The next state, or undefined when the event does not apply in this state. */
export function nextHandoffState(state: HandoffState, event: HandoffEvent): HandoffState | undefined {
  const transition = transitions[event]
  return transition.from.includes(state) ? transition.to : undefined
}

export class HandoffTransitionError extends Error {
  readonly state: HandoffState | undefined
  readonly event: HandoffEvent
  constructor(event: HandoffEvent, state: HandoffState | undefined) {
    super(state === undefined ? 'session not found' : `handoff cannot go by ${event} from ${state}`)
    this.name = 'HandoffTransitionError'
    this.event = event
    this.state = state
  }
}

/**
 * Applies an event atomically: the row moves only if it is still in an allowed state, so a
 * visitor and an operator acting at once cannot both win. Answers the new state.
 */
export async function applyHandoffEvent(db: Db, sessionId: string, event: HandoffEvent): Promise<HandoffState> {
  const { from, to } = transitions[event]
  const moved = await db
    .updateTable('agent_sessions')
    .set({ handoff_state: to, handoff_updated_at: sql`now()` })
    .where('id', '=', sessionId)
    .where('handoff_state', 'in', [...from])
    .returning('handoff_state')
    .executeTakeFirst()
  if (moved) return moved.handoff_state
  const current = await db.selectFrom('agent_sessions').select('handoff_state').where('id', '=', sessionId).executeTakeFirst()
  throw new HandoffTransitionError(event, current?.handoff_state)
}
