import { hash, randomUUID } from 'node:crypto'
import { CompiledQuery, sql } from 'kysely'
import type { Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import { canonicalJson } from '../domain/leads/consent.ts'
import { executePrepared } from '../infra/prepared.ts'
import type { SiteSettings } from '../domain/sites/settings.ts'
import type { HandoffState } from './schemas.ts'
import { messageContext } from '../domain/leads/conversations.ts'
import { nextHandoffState } from '../domain/leads/handoff.ts'

/**
 * Durable, idempotent chat turns keyed by (session_id, turn_id) (DESIGN.md 6).
 *
 * - A responder that answers at once (the built-in one) records the finished turn, its transcript
 *   and the session update in one statement: one round trip, one commit. A concurrent duplicate
 *   waits on the key's unique index and then finds the stored turn.
 * - A slow responder (a language model) first claims the key with a `processing` row and a lease;
 *   only the claimant answers.
 * - The same key with the same payload gets the stored response back, byte for byte.
 * - The same key with another payload is a payload mismatch.
 * - The same key while the claimant works is "turn in progress".
 * - A claim whose lease ran out (its process died) is taken over by the next submission.
 * The answer is stored together with the transcript and the session update in one statement, and
 * only by the holder of the current lease.
 */

export type Claim =
  | { kind: 'claimed'; owner: string }
  | { kind: 'done'; response: string }
  | { kind: 'mismatch' }
  | { kind: 'in-progress'; retryAfterSeconds: number }
  | { kind: 'gone' }

/** Longer than the language model's timeout, so a slow but live turn is never taken over. */
export const TURN_LEASE_MS = 15_000
/** A waiting client is told to come back soon: most turns finish in milliseconds. */
const MAX_RETRY_AFTER_SECONDS = 3

export interface TurnPayload {
  message: string
  url?: string | undefined
  locale?: string | undefined
}

/**
 * What makes two submissions of one turn "the same": the visitor's message and its context, as
 * the SHA-256 of their RFC 8785 canonical JSON. Three keys whose values are strings or null: the
 * canonical form is written out with the keys in their sorted order (JCS serialises a string as
 * JSON.stringify does), the same bytes the general canonicaliser gives, at a fraction of its cost
 * on every turn.
 */
export function requestHash(payload: TurnPayload): string {
  const { message, url = null, locale = null } = payload
  // Text JCS refuses (a lone surrogate) goes through the canonicaliser, which refuses it as before.
  const canonical =
    message.isWellFormed() && (url?.isWellFormed() ?? true) && (locale?.isWellFormed() ?? true)
      ? `{"locale":${JSON.stringify(locale)},"message":${JSON.stringify(message)},"url":${JSON.stringify(url)}}`
      : canonicalJson({ message, url, locale })
  return hash('sha256', canonical, 'hex')
}

export async function claimTurn(db: Db, sessionId: string, turnId: string, hash: string, leaseMs = TURN_LEASE_MS): Promise<Claim> {
  const owner = randomUUID()
  const inserted = await db
    .insertInto('agent_turns')
    .values({
      session_id: sessionId,
      turn_id: turnId,
      request_hash: hash,
      state: 'processing',
      lease_owner: owner,
      lease_until: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`,
      response: null,
      completed_at: null,
    })
    .onConflict((oc) => oc.columns(['session_id', 'turn_id']).doNothing())
    .returning('lease_owner')
    .executeTakeFirst()
  if (inserted) return { kind: 'claimed', owner }

  const existing = await db
    .selectFrom('agent_turns')
    .select(['state', 'request_hash', 'response', sql<number>`extract(epoch from (lease_until - now()))`.as('lease_left')])
    .where('session_id', '=', sessionId)
    .where('turn_id', '=', turnId)
    .executeTakeFirst()
  if (!existing) return { kind: 'gone' }
  if (existing.request_hash !== hash) return { kind: 'mismatch' }
  if (existing.state === 'done') return { kind: 'done', response: existing.response ?? '' }
  const left = Number(existing.lease_left)
  if (left > 0) return { kind: 'in-progress', retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(left))) }

  // The claimant's lease ran out: take the turn over, unless someone else just did.
  const taken = await db
    .updateTable('agent_turns')
    .set({ lease_owner: owner, lease_until: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`, attempts: sql`attempts + 1` })
    .where('session_id', '=', sessionId)
    .where('turn_id', '=', turnId)
    .where('state', '=', 'processing')
    .where('lease_until', '<=', sql<Date>`now()`)
    .returning('lease_owner')
    .executeTakeFirst()
  return taken ? { kind: 'claimed', owner } : { kind: 'in-progress', retryAfterSeconds: 1 }
}

/** A turn as it is stored: its key, the answer sent, and what the transcript and session gain. */
export interface TurnRecord {
  sessionId: string
  turnId: string
  requestHash: string
  response: string
  visitorText: string
  /** Undefined when no assistant message belongs in the transcript (an operator holds the conversation). */
  assistantText: string | undefined
  requestHandoff: boolean
}

function transcriptRows(keyring: Keyring, sessionId: string, visitorText: string, assistantText: string | undefined) {
  const context = messageContext(sessionId)
  const rows = [sql`(1, 'visitor', ${keyring.seal(visitorText, context)})`]
  if (assistantText !== undefined) rows.push(sql`(2, 'assistant', ${keyring.seal(assistantText, context)})`)
  return sql.join(rows)
}

/** The states a visitor's request moves to `requested`, from the one handoff state machine. */
const HANDOFF_STATES: readonly HandoffState[] = ['none', 'requested', 'active', 'resolved']
const requestable = HANDOFF_STATES.filter((state) => nextHandoffState(state, 'visitor_requested') !== undefined)
const movesOnRequest = (requestHandoff: boolean) => sql`${requestHandoff} and handoff_state in (${sql.join(requestable)})`

const sessionUpdate = (requestHandoff: boolean) => sql`
  last_active_at = now(),
  handoff_state = case when ${movesOnRequest(requestHandoff)} then ${nextHandoffState('none', 'visitor_requested')} else handoff_state end,
  handoff_updated_at = case when ${movesOnRequest(requestHandoff)} then now() else handoff_updated_at end`

/** What the answer of a turn was computed from; the turn is stored only if it still holds. */
export interface TurnBasis {
  handoff: HandoffState
  siteSettings: SiteSettings
}

export type RecordOutcome = 'stored' | 'exists' | 'stale'

/** A constant of the handoff state machine as an SQL literal (they are plain lowercase words). */
const literal = (value: string) => {
  if (!/^[a-z_]+$/.test(value)) throw new Error(`not a state name: ${value}`)
  return `'${value}'`
}

/**
 * The statement of recordFinishedTurn, written once as text (with and without the assistant's
 * message) so that it runs as a prepared statement: PostgreSQL parses and plans it once per
 * connection, and no query tree is built and compiled per turn. Parameters: $1 session, $2 the
 * handoff state and $3 the site settings the answer was computed from, $4 turn id, $5 request
 * hash, $6 response, $7 whether the visitor asked for a person, $8 and $9 the sealed messages.
 * The session row is rewritten only when something changes that matters: a handoff request, or a
 * last-activity mark older than a minute (retention needs minutes, not milliseconds); rewriting it
 * on every turn would cost a full page of WAL per turn for nothing.
 */
const recordTurnText = (withAssistant: boolean) => `
    with g as (
      select s.id from agent_sessions s join sites on sites.id = s.site_id
      where s.id = $1 and s.handoff_state = $2 and sites.status <> 'offline' and sites.settings = $3::jsonb
    ), t as (
      insert into agent_turns (session_id, turn_id, request_hash, state, lease_owner, lease_until, response, completed_at)
      select g.id, $4, $5, 'done', null, null, $6, now() from g
      on conflict (session_id, turn_id) do nothing
      returning session_id
    ), m as (
      insert into agent_messages (session_id, role, text_sealed, turn_id)
      select t.session_id, v.role, v.text, $4 from t cross join (values (1, 'visitor', $8::text)${withAssistant ? ", (2, 'assistant', $9::text)" : ''}) as v(ord, role, text)
      order by v.ord
      returning 1
    ), s as (
      update agent_sessions set last_active_at = now(),
        handoff_state = case when $7::boolean and handoff_state in (${requestable.map(literal).join(', ')}) then ${literal(nextHandoffState('none', 'visitor_requested')!)} else handoff_state end,
        handoff_updated_at = case when $7::boolean and handoff_state in (${requestable.map(literal).join(', ')}) then now() else handoff_updated_at end
      where id = (select session_id from t) and ($7::boolean or last_active_at < now() - interval '1 minute')
      returning 1
    )
    select (select count(*) from g)::int as valid, (select count(*) from t)::int as inserted, (select count(*) from m)::int as messages, (select count(*) from s)::int as sessions`
const RECORD_TURN = { withAssistant: recordTurnText(true), visitorOnly: recordTurnText(false) }

/**
 * Records a turn answered at once: the turn row (already done), both transcript messages and the
 * session's new state, atomically, in one statement. It is stored only while the session still
 * exists with the handoff state and site settings the answer was computed from (so a briefly
 * cached session view can never produce a wrong answer). Answers 'exists' when the key was taken
 * (the caller resolves it with claimTurn) and 'stale' when the basis no longer holds.
 */
export async function recordFinishedTurn(db: Db, keyring: Keyring, t: TurnRecord, basis: TurnBasis): Promise<RecordOutcome> {
  const context = messageContext(t.sessionId)
  const values: unknown[] = [
    t.sessionId,
    basis.handoff,
    JSON.stringify(basis.siteSettings),
    t.turnId,
    t.requestHash,
    t.response,
    t.requestHandoff,
    keyring.seal(t.visitorText, context),
  ]
  if (t.assistantText !== undefined) values.push(keyring.seal(t.assistantText, context))
  const text = t.assistantText !== undefined ? RECORD_TURN.withAssistant : RECORD_TURN.visitorOnly
  const rows = await executePrepared(db, {
    compile: () => CompiledQuery.raw(text, values) as CompiledQuery<{ valid: number; inserted: number }>,
  })
  const row = rows[0]
  if (!row || row.valid === 0) return 'stale'
  return row.inserted > 0 ? 'stored' : 'exists'
}

/**
 * Stores the answer, both transcript messages and the session's new state in one atomic
 * statement. Answers the handoff state after the turn, or undefined when the lease was lost.
 */
export async function completeTurn(db: Db, keyring: Keyring, c: TurnRecord & { owner: string }): Promise<HandoffState | undefined> {
  const { rows } = await sql<{ done: number; handoff: HandoffState | null }>`
    with t as (
      update agent_turns set state = 'done', response = ${c.response}, completed_at = now(), lease_owner = null, lease_until = null
      where session_id = ${c.sessionId} and turn_id = ${c.turnId} and lease_owner = ${c.owner} and state = 'processing'
      returning session_id
    ), m as (
      insert into agent_messages (session_id, role, text_sealed, turn_id)
      select t.session_id, v.role, v.text, ${c.turnId} from t cross join (values ${transcriptRows(keyring, c.sessionId, c.visitorText, c.assistantText)}) as v(ord, role, text)
      order by v.ord
      returning 1
    ), s as (
      update agent_sessions set ${sessionUpdate(c.requestHandoff)}
      where id = (select session_id from t)
      returning handoff_state
    )
    select (select count(*) from t)::int as done, (select handoff_state from s) as handoff, (select count(*) from m)::int as written
  `.execute(db)
  const row = rows[0]
  if (!row || row.done === 0) return undefined
  return row.handoff ?? undefined
}

/** The turn as it stands now, for a claimant that lost its lease and must answer something. */
export async function storedResponse(db: Db, sessionId: string, turnId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('agent_turns')
    .select(['state', 'response'])
    .where('session_id', '=', sessionId)
    .where('turn_id', '=', turnId)
    .executeTakeFirst()
  return row?.state === 'done' && row.response ? row.response : undefined
}
