import type { ColumnType, Generated } from 'kysely'
import type { CreatedAt, Timestamp } from '../infra/tables.ts'
import type { Locale } from '../sites/tables.ts'

export type HandoffStateColumn = 'none' | 'requested' | 'active' | 'resolved'

export interface AgentSessionsTable {
  id: string
  /** SHA-256 hex of the session token; the token itself is never stored. */
  token_hash: string
  site_id: string
  locale: Locale
  handoff_state: ColumnType<HandoffStateColumn, HandoffStateColumn | undefined, HandoffStateColumn>
  handoff_updated_at: Timestamp | null
  created_at: CreatedAt
  last_active_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface AgentMessagesTable {
  id: Generated<string>
  session_id: string
  role: 'visitor' | 'assistant' | 'operator'
  /** The message text sealed with the data key (a visitor may write personal data into the chat). */
  text_sealed: string
  turn_id: string | null
  created_at: ColumnType<Date, Date | string | undefined, never>
}

export interface AgentTurnsTable {
  session_id: string
  turn_id: string
  request_hash: string
  state: 'processing' | 'done'
  lease_owner: string | null
  lease_until: Timestamp | null
  attempts: Generated<number>
  response: string | null
  created_at: CreatedAt
  completed_at: Timestamp | null
}

export interface AgentEventsTable {
  session_id: string
  type: string
  count: Generated<number>
  first_at: CreatedAt
  last_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** Tables of this room; src/infra/tables.ts composes them into the Database type. */
export interface AgentTables {
  agent_sessions: AgentSessionsTable
  agent_messages: AgentMessagesTable
  agent_turns: AgentTurnsTable
  agent_events: AgentEventsTable
}
