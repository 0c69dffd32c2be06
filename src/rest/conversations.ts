import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import {
  conversationMessages,
  getAccountConversation,
  listAccountConversations,
  postOperatorMessage,
  resolveHandoff,
  takeHandoff,
} from '../domain/leads/conversations.ts'
import { HandoffTransitionError } from '../domain/leads/handoff.ts'
import type { Db } from '../infra/db.ts'
import { errors } from '../errors.ts'
import { answerChange } from './audited-change.ts'
import { envelope, listQuery, ListEnvelope, pageOf, sendItem } from './http.ts'
import { Conversation, ConversationWithMessages, OperatorMessage, params, SessionId, SiteId } from './schemas/content.ts'
import { literalUnion } from '../schemas.ts'
import { orNotFound } from './sites.ts'

const ConversationsQuery = listQuery({
  handoff: Type.Optional(literalUnion(['none', 'requested', 'active', 'resolved'] as const)),
  site_id: Type.Optional(SiteId),
})
const SessionParams = params('session_id', SessionId)
const tags = ['conversations']

/**
 * The operator side of the handoff (DESIGN.md 6 and 7): the inbox of conversations, taking one
 * over, writing into it (the visitor's transcript shows the message with role operator) and
 * closing it. Reads need read:sites, the actions write:pages.
 */
export default async function conversationRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  async function withMessages(request: FastifyRequest, sessionId: string, db: Db = app.db) {
    const conversation = orNotFound(await getAccountConversation(db, request.principal.accountId, sessionId), 'Conversation')
    return { ...conversation, messages: await conversationMessages(db, app.keyring, sessionId) }
  }

  /** Runs a handoff move on the account's conversation and answers it; a move the state does not allow is 409. */
  function act(
    request: FastifyRequest<{ Params: { session_id: string } }>,
    reply: FastifyReply,
    move: (db: Db, sessionId: string) => Promise<unknown>,
  ) {
    const sessionId = request.params.session_id
    return answerChange(
      request,
      reply,
      async (trx) => {
        orNotFound(await getAccountConversation(trx, request.principal.accountId, sessionId), 'Conversation')
        try {
          await move(trx, sessionId)
        } catch (error) {
          if (error instanceof HandoffTransitionError)
            throw new errors.handoffStateConflict(`The conversation is ${error.state ?? 'gone'}; this action does not apply`)
          throw error
        }
      },
      async (_moved, trx) => ({ status: 200, body: await withMessages(request, sessionId, trx) }),
    )
  }

  typed.get(
    '/conversations',
    {
      config: { operation: 'conversations.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List conversations (?handoff=requested for the inbox)',
        tags,
        querystring: ConversationsQuery,
        response: { 200: ListEnvelope(Conversation, 'Conversations') },
      },
    },
    async (request) => {
      const paging = pageOf(request.query)
      const { items, total } = await listAccountConversations(
        app.db,
        request.principal.accountId,
        { handoff: request.query.handoff, siteId: request.query.site_id },
        paging,
      )
      return envelope(items, total, paging.page, paging.perPage)
    },
  )

  typed.get(
    '/conversations/:session_id',
    {
      config: { operation: 'conversations.get', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'Get a conversation with its transcript',
        tags,
        params: SessionParams,
        response: { 200: ConversationWithMessages },
      },
    },
    async (request, reply) => sendItem(reply, await withMessages(request, request.params.session_id)),
  )

  typed.post(
    '/conversations/:session_id/take',
    {
      config: { operation: 'conversations.take', scope: 'write:pages', access: 'write', etag: [200] },
      schema: {
        summary: 'Take over a requested conversation; the assistant falls silent',
        tags,
        params: SessionParams,
        response: { 200: ConversationWithMessages },
      },
    },
    async (request, reply) => act(request, reply, takeHandoff),
  )

  typed.post(
    '/conversations/:session_id/messages',
    {
      config: { operation: 'conversations.message', scope: 'write:pages', access: 'write', etag: [200] },
      schema: {
        summary: 'Write to the visitor while holding the conversation',
        tags,
        params: SessionParams,
        body: OperatorMessage,
        response: { 200: ConversationWithMessages },
      },
    },
    async (request, reply) => {
      const text = request.body.text
      if (text.trim().length === 0) throw new errors.validationFailed("The field 'text' must not be blank")
      return act(request, reply, (db, sessionId) => postOperatorMessage(db, app.keyring, sessionId, text))
    },
  )

  typed.post(
    '/conversations/:session_id/resolve',
    {
      config: { operation: 'conversations.resolve', scope: 'write:pages', access: 'write', etag: [200] },
      schema: {
        summary: 'Close the conversation; the assistant answers again',
        tags,
        params: SessionParams,
        response: { 200: ConversationWithMessages },
      },
    },
    async (request, reply) => act(request, reply, resolveHandoff),
  )
}
