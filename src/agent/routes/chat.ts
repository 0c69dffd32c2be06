import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { createLimiter } from '../../infra/rate-limits.ts'
import type { AgentDeps } from '../context.ts'
import { liveAssistant } from '../context.ts'
import { AGENT_BODY_LIMIT, agentError, rateLimited, turnInProgress } from '../errors.ts'
import { AgentChatRequest, AgentChatResponse, AgentError, AgentRateLimitError, AgentTurnInProgressError, described, type AgentChatResponse as ChatAnswer } from '../schemas.ts'
import { findSession, loadTranscript, SessionCache, type SessionContext } from '../sessions.ts'
import { claimTurn, completeTurn, recordFinishedTurn, requestHash, storedResponse } from '../turns.ts'
import type { TurnInput, TurnPlan } from '../responder/types.ts'
import { Type } from 'typebox'
import { nextHandoffState } from '../../domain/handoff.ts'

/** POST /chat: one durable, idempotent turn (INTERFACE.md 4.2, DESIGN.md 6). */
export default async function chatRoute(app: FastifyInstance, deps: AgentDeps) {
  const { db, keyring, config } = app
  const sessions = new SessionCache()
  const limitSession = createLimiter(app, 'agent.turns')

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
          409: Type.Union([AgentTurnInProgressError, AgentError], { description: 'Turn in progress (retry after retry_after_seconds), payload mismatch or locale mismatch' }),
          429: described(AgentRateLimitError, 'Rate limited; see Retry-After'),
          503: described(AgentError, 'Agent unavailable; contactFallback is true'),
        },
      },
    },
    async (request, reply) => {
      const { body } = request
      reply.header('cache-control', 'no-store')

      // A session verified moments ago is taken from the cache; anything negative is re-read.
      let fresh = false
      const reload = async () => {
        fresh = true
        const view = await findSession(db, body.session_id, body.session_token)
        if (view) sessions.set(view, body.session_token)
        else sessions.delete(body.session_id)
        return view
      }
      let session = sessions.get(body.session_id, body.session_token) ?? (await reload())
      if (!session) throw agentError('sessionNotFound')
      // Counted once the capability is proven, so nobody can spend another session's budget.
      const limit = await limitSession(request)
      if (!limit.isAllowed && limit.isExceeded) throw rateLimited(limit.ttlInSeconds)
      if (!assistantOf(session) && !fresh) session = await reload()
      if (!session) throw agentError('sessionNotFound')
      if (!assistantOf(session)) throw agentError('featureDisabled')
      if (body.locale !== undefined && body.locale !== session.locale) throw agentError('localeMismatch')

      const hash = requestHash(body)
      const pageAt = pagePath(body.url, config.BASE_URL)
      // Stored answers are already-serialized JSON, sent byte for byte, so the schema's serializer is bypassed.
      const send = (json: string) => (reply as FastifyReply).type('application/json; charset=utf-8').send(json)

      // The answer as stored and sent: computed once, replayed byte for byte.
      const answer = async (view: SessionContext) => {
        const assistant = assistantOf(view)
        if (!assistant) throw agentError('featureDisabled')
        const input: TurnInput = {
          locale: view.locale,
          message: body.message,
          pagePath: pageAt,
          capabilities: assistant.capabilities,
          handoff: view.handoff,
          persona: assistant.persona,
          siteName: view.siteName,
          siteId: view.siteId,
          history: () => loadTranscript(db, keyring, view.id, 20),
        }
        const plan: TurnPlan = await deps.responder.respond(input)
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
          requestHash: hash,
          response: JSON.stringify(json),
          visitorText: body.message,
          // While an operator holds the conversation the assistant stays silent in the transcript.
          assistantText: view.handoff === 'active' ? undefined : plan.reply,
          requestHandoff: plan.requestHandoff,
        }
      }

      if (deps.responder.immediate) {
        // Answer first, then store turn and transcript in one statement: one round trip, one commit.
        for (let attempt = 0; attempt < 2; attempt++) {
          const finished = await answer(session)
          const outcome = await recordFinishedTurn(db, keyring, finished, { handoff: session.handoff, siteSettings: session.siteSettings })
          if (outcome === 'stored') return send(finished.response)
          if (outcome === 'exists') break
          // The session changed (handoff moved, site settings edited, session erased): read it again.
          session = await reload()
          if (!session) throw agentError('sessionNotFound')
        }
      }

      // The key exists already (a repeat, a concurrent duplicate, a dead claimant) or the responder is slow.
      const claim = await claimTurn(db, session.id, body.turn_id, hash)
      if (claim.kind === 'gone') throw agentError('sessionNotFound')
      if (claim.kind === 'mismatch') throw agentError('payloadMismatch')
      if (claim.kind === 'in-progress') throw turnInProgress(claim.retryAfterSeconds)
      if (claim.kind === 'done') return send(claim.response)

      // We hold the turn now: answer it from the session as it stands.
      if (!fresh) session = await reload()
      if (!session) throw agentError('sessionNotFound')
      const completion = { ...(await answer(session)), owner: claim.owner }
      const stored = await completeTurn(db, keyring, completion)
      if (stored === undefined) {
        // Our lease ran out and another process took the turn: answer what it stored, or ask to retry.
        const other = await storedResponse(db, session.id, body.turn_id)
        if (other === undefined) throw turnInProgress(1)
        return send(other)
      }
      return send(completion.response)
    },
  )
}

const assistantOf = (view: SessionContext) => liveAssistant({ status: view.siteStatus, settings: view.siteSettings })

function pagePath(url: string | undefined, baseUrl: string): string | undefined {
  if (!url) return undefined
  try {
    return new URL(url, baseUrl).pathname
  } catch {
    return undefined
  }
}
