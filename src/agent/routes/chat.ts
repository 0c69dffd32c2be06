import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { nextHandoffState } from '../../domain/leads/handoff.ts'
import { recordNotice } from '../../domain/notifications/notices.ts'
import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { createLimiter } from '../../infra/rate-limit/budgets.ts'
import type { AgentDeps } from '../context.ts'
import { liveAssistant } from '../context.ts'
import { AGENT_BODY_LIMIT, agentError, rateLimited, turnInProgress } from '../errors.ts'
import type { TurnInput } from '../responder/types.ts'
import {
  AgentChatRequest,
  AgentChatResponse,
  AgentError,
  AgentRateLimitError,
  AgentTurnInProgressError,
  described,
  type AgentChatRequest as ChatBody,
  type AgentChatResponse as ChatAnswer,
} from '../schemas.ts'
import { findSession, loadTranscript, SessionCache, type SessionContext } from '../sessions.ts'
import { claimTurn, completeTurn, recordFinishedTurn, requestHash, storedResponse, type TurnRecord } from '../turns.ts'

/**
 * POST /chat: one durable, idempotent turn (INTERFACE.md 4.2, DESIGN.md 6), in three steps:
 * load the session (once, from a short-lived cache of verified sessions when it can), compose the
 * answer, and store it with the transcript: at once in one statement when the responder answers
 * immediately, otherwise under a claim on the turn's key so that only one process answers it.
 */
export default async function chatRoute(app: FastifyInstance, deps: AgentDeps) {
  const { db, keyring, config } = app
  const sessions = new SessionCache()
  const limitSession = createLimiter(app, 'agent.turns')
  const notice = handoffNotifier(db, app.log)

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/chat',
    {
      config: { operation: 'agent.chat' },
      bodyLimit: AGENT_BODY_LIMIT,
      schema: {
        summary: 'Submit one chat turn',
        tags: ['sales-agent'],
        body: AgentChatRequest,
        response: {
          200: described(AgentChatResponse, 'The stored turn response (a repeat of the turn gets the same bytes)'),
          400: described(AgentError, 'Invalid request or invalid session id'),
          404: described(AgentError, 'Feature disabled or session not found'),
          409: Type.Union([AgentTurnInProgressError, AgentError], {
            description: 'Turn in progress (retry after retry_after_seconds), payload mismatch or locale mismatch',
          }),
          429: described(AgentRateLimitError, 'Rate limited; see Retry-After'),
          503: described(AgentError, 'Agent unavailable; contactFallback is true'),
        },
      },
    },
    async (request, reply) => {
      const { body } = request
      reply.header('cache-control', 'no-store')

      // Step 1: the session. A view verified moments ago comes from the cache; anything doubtful is re-read.
      const loader = new SessionLoader(db, sessions, body)
      let session = await loader.current()
      // Counted once the capability is proven, so nobody can spend another session's budget.
      const limit = await limitSession(request)
      if (!limit.isAllowed && limit.isExceeded) throw rateLimited(limit.ttlInSeconds)
      if (!assistantOf(session) && !loader.fresh) session = await loader.reload()
      if (!assistantOf(session)) throw agentError('featureDisabled')
      if (body.locale !== undefined && body.locale !== session.locale) throw agentError('localeMismatch')

      // Step 2: the answer, computed once per stored turn and replayed byte for byte.
      const turn = { body, hash: requestHash(body), pagePath: pagePath(body.url, config.BASE_URL) }
      const compose = (view: SessionContext) => composeTurn(deps, db, keyring, view, turn)

      // Step 3: store it. Stored answers are serialized JSON already, so the schema's serializer is bypassed.
      const send = (json: string) => (reply as FastifyReply).type('application/json; charset=utf-8').send(json)
      if (deps.responder.immediate) {
        const stored = await storeAtOnce(db, keyring, loader, session, compose, notice)
        if (stored !== undefined) return send(stored)
      }
      return send(await storeUnderClaim(db, keyring, loader, compose, turn, notice))
    },
  )
}

/** The session of a turn: read from the cache or the database, and read again from the database when in doubt. */
class SessionLoader {
  /** True once the view was read from the database during this request. */
  fresh = false
  #view: SessionContext | undefined
  readonly #db: Db
  readonly #cache: SessionCache
  readonly #body: ChatBody

  constructor(db: Db, cache: SessionCache, body: ChatBody) {
    this.#db = db
    this.#cache = cache
    this.#body = body
  }

  async current(): Promise<SessionContext> {
    this.#view ??= this.#cache.get(this.#body.session_id, this.#body.session_token) ?? (await this.reload())
    return this.#view
  }

  /** The view as the database holds it now: read again unless it was read during this request. */
  async latest(): Promise<SessionContext> {
    return this.fresh ? this.current() : this.reload()
  }

  async reload(): Promise<SessionContext> {
    this.fresh = true
    const { session_id: id, session_token: token } = this.#body
    const view = await findSession(this.#db, id, token)
    if (!view) {
      this.#cache.delete(id)
      throw agentError('sessionNotFound')
    }
    this.#cache.set(view, token)
    this.#view = view
    return view
  }
}

interface TurnRequest {
  body: ChatBody
  hash: string
  pagePath: string | undefined
}

/** Asks the responder and shapes the answer as it is sent and stored. */
async function composeTurn(deps: AgentDeps, db: Db, keyring: Keyring, view: SessionContext, turn: TurnRequest): Promise<TurnRecord> {
  const assistant = assistantOf(view)
  if (!assistant) throw agentError('featureDisabled')
  const { body } = turn
  const input: TurnInput = {
    locale: view.locale,
    message: body.message,
    pagePath: turn.pagePath,
    capabilities: assistant.capabilities,
    handoff: view.handoff,
    persona: assistant.persona,
    siteName: view.siteName,
    siteId: view.siteId,
    history: () => loadTranscript(db, keyring, view.id, 20),
  }
  const plan = await deps.responder.respond(input)
  const handoff = (plan.requestHandoff && nextHandoffState(view.handoff, 'visitor_requested')) || view.handoff
  const json: ChatAnswer = {
    reply: plan.reply,
    session_id: view.id,
    ...(plan.actions?.length ? { actions: plan.actions.slice(0, 1) } : {}),
    ...(plan.suggestions?.length ? { suggestions: plan.suggestions.slice(0, 1) } : {}),
    ...(plan.sources?.length ? { sources: plan.sources } : {}),
    handoff: { state: handoff },
    ...(plan.usage ? { usage: plan.usage } : {}),
  }
  return {
    sessionId: view.id,
    turnId: body.turn_id,
    requestHash: turn.hash,
    response: JSON.stringify(json),
    visitorText: body.message,
    // While an operator holds the conversation the assistant stays silent in the transcript.
    assistantText: view.handoff === 'active' ? undefined : plan.reply,
    requestHandoff: plan.requestHandoff,
  }
}

/**
 * Answers first, then stores turn, transcript and session in one statement: one round trip, one
 * commit. Undefined when the turn's key exists already (a repeat or a concurrent duplicate), which
 * the claim path then resolves.
 */
async function storeAtOnce(
  db: Db,
  keyring: Keyring,
  loader: SessionLoader,
  session: SessionContext,
  compose: (view: SessionContext) => Promise<TurnRecord>,
  notice: HandoffNotice,
): Promise<string | undefined> {
  let view = session
  for (let attempt = 0; attempt < 2; attempt++) {
    const record = await compose(view)
    const outcome = await recordFinishedTurn(db, keyring, record, { handoff: view.handoff, siteSettings: view.siteSettings })
    if (outcome === 'stored') {
      await notice(view, record)
      return record.response
    }
    if (outcome === 'exists') return undefined
    // The session changed under the answer (handoff moved, site settings edited, session erased): read it again.
    view = await loader.reload()
  }
  return undefined
}

/**
 * Takes the turn's key, or finds it taken (409 turn in progress) or done (the stored answer);
 * holding it, answers from the session as it stands now and stores the answer under the lease.
 */
async function storeUnderClaim(
  db: Db,
  keyring: Keyring,
  loader: SessionLoader,
  compose: (view: SessionContext) => Promise<TurnRecord>,
  turn: TurnRequest,
  notice: HandoffNotice,
): Promise<string> {
  const { session_id: sessionId, turn_id: turnId } = turn.body
  const claim = await claimTurn(db, sessionId, turnId, turn.hash)
  if (claim.kind === 'gone') throw agentError('sessionNotFound')
  if (claim.kind === 'mismatch') throw agentError('payloadMismatch')
  if (claim.kind === 'in-progress') throw turnInProgress(claim.retryAfterSeconds)
  if (claim.kind === 'done') return claim.response

  const view = await loader.latest()
  const record = { ...(await compose(view)), owner: claim.owner }
  const handoff = await completeTurn(db, keyring, record)
  if (handoff !== undefined) {
    if (handoff === 'requested') await notice(view, record)
    return record.response
  }
  // Our lease ran out and another process took the turn: answer what it stored, or ask to retry.
  const other = await storedResponse(db, sessionId, turnId)
  if (other === undefined) throw turnInProgress(1)
  return other
}

/**
 * The account's people hear by mail that a visitor asks for a person (DESIGN.md 17), when this
 * turn moved the conversation to requested. The turn is stored by then (one prepared statement),
 * so the notice follows it; should recording it fail, the visitor still gets the answer and the
 * request stays in the dashboard's queue.
 */
function handoffNotifier(db: Db, log: FastifyBaseLogger): HandoffNotice {
  return async (view, record) => {
    if (!record.requestHandoff || nextHandoffState(view.handoff, 'visitor_requested') === undefined) return
    try {
      await recordNotice(db, { siteId: view.siteId, kind: 'handoff', sessionId: view.id })
    } catch (error) {
      log.warn({ err: error, session: view.id }, 'the notice of a request for a person could not be recorded')
    }
  }
}

type HandoffNotice = (view: SessionContext, record: TurnRecord) => Promise<void>

const assistantOf = (view: SessionContext) => liveAssistant({ status: view.siteStatus, settings: view.siteSettings })

function pagePath(url: string | undefined, baseUrl: string): string | undefined {
  if (!url) return undefined
  try {
    return new URL(url, baseUrl).pathname
  } catch {
    return undefined
  }
}
