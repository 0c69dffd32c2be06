import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import {
  conversationMessages,
  getAccountConversation,
  listAccountConversations,
  postOperatorMessage,
} from '../../domain/leads/conversations.ts'
import { applyHandoffEvent, HandoffTransitionError, type HandoffEvent } from '../../domain/leads/handoff.ts'
import type { Db } from '../../infra/db.ts'
import { errors } from '../../errors.ts'
import { html } from '../../infra/html.ts'
import { actionForm, dataTable, when } from '../layout.ts'
import { mayChange } from '../permissions.ts'
import { auditedChange } from '../audited-change.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const Params = Type.Object({ id: Type.String({ pattern: '^ag_[A-Za-z0-9_-]{1,200}$' }) })

/** A move the conversation's state no longer allows (another operator was quicker) is a 409, not a failure. */
async function handoffMove<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof HandoffTransitionError)
      throw new errors.handoffStateConflict(`The conversation is ${error.state ?? 'gone'}; this action does not apply`)
    throw error
  }
}

/** The handoff inbox: conversations waiting for a person, taken over, answered and resolved here. */
export default async function conversationsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db, keyring } = app

  async function ownConversation(accountId: string, sessionId: string) {
    const conversation = await getAccountConversation(db, accountId, sessionId)
    if (!conversation) throw new errors.notFound('No such conversation')
    return conversation
  }

  routes.get(
    '/conversations',
    { config: { operation: 'dashboard.conversations.list' }, schema: { hide: true } },
    async (request, reply) => {
      const [waiting, held] = await Promise.all([
        listAccountConversations(db, request.person.accountId, { handoff: 'requested' }, { limit: 100, offset: 0 }),
        listAccountConversations(db, request.person.accountId, { handoff: 'active' }, { limit: 100, offset: 0 }),
      ])
      const rows = [...waiting.items, ...held.items]
      return reply.page(
        'Conversations',
        'conversations',
        rows.length === 0
          ? html`<p>No visitor is waiting for a person.</p>`
          : dataTable(
              'Conversations waiting for or held by a person',
              ['Conversation', 'Handoff', 'Since', 'Locale'],
              rows.map((c) => [
                html`<a href="/app/conversations/${c.session_id}"><code>${c.session_id}</code></a>`,
                c.handoff.state,
                when(c.handoff.since),
                c.locale,
              ]),
            ),
      )
    },
  )

  routes.get(
    '/conversations/:id',
    { config: { operation: 'dashboard.conversations.get' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const conversation = await ownConversation(request.person.accountId, request.params.id)
      const messages = await conversationMessages(db, keyring, conversation.session_id)
      const csrf = reply.formToken()
      const state = conversation.handoff.state
      // Taking over, replying and resolving are an editor's; a viewer reads the transcript.
      const may = mayChange(request.person)
      return reply.page(
        `Conversation ${conversation.session_id}`,
        'conversations',
        html`<p>Handoff: <strong>${state}</strong></p>
<ol class="card" aria-label="Transcript">${messages.map((m) => html`<li><strong>${m.role}</strong> <span class="muted">${when(m.at)}</span><br>${m.text}</li>`)}</ol>
${may && state === 'requested' ? actionForm(`/app/conversations/${conversation.session_id}/take`, csrf, 'Take over') : ''}
${
  may && state === 'active'
    ? html`<form method="post" action="/app/conversations/${conversation.session_id}/messages" class="card"><input type="hidden" name="_csrf" value="${csrf}"><label for="reply">Your reply</label><textarea id="reply" name="text" required maxlength="2000" rows="3" style="width:100%"></textarea><p><button type="submit">Send reply</button></p></form>`
    : ''
}
${may && (state === 'requested' || state === 'active') ? actionForm(`/app/conversations/${conversation.session_id}/resolve`, csrf, 'Resolve', { kind: 'secondary' }) : ''}`,
      )
    },
  )

  for (const [action, event, done] of [
    ['take', 'operator_took', 'taken'],
    ['resolve', 'operator_closed', 'resolved'],
  ] as const satisfies ReadonlyArray<readonly [string, HandoffEvent, string]>) {
    routes.post(
      `/conversations/:id/${action}`,
      {
        config: { operation: `dashboard.conversations.${action}` },
        schema: { hide: true, params: Params, body: Type.Object(Form, { additionalProperties: false }) },
      },
      async (request, reply) => {
        const conversation = await ownConversation(request.person.accountId, request.params.id)
        await handoffMove(() => auditedChange(request, (trx: Db) => applyHandoffEvent(trx, conversation.session_id, event)))
        return reply.redirect(`/app/conversations/${conversation.session_id}?done=${done}`, 303)
      },
    )
  }

  routes.post(
    '/conversations/:id/messages',
    {
      config: { operation: 'dashboard.conversations.message' },
      schema: {
        hide: true,
        params: Params,
        body: Type.Object({ ...Form, text: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const conversation = await ownConversation(request.person.accountId, request.params.id)
      await handoffMove(() =>
        auditedChange(request, (trx) => postOperatorMessage(trx, keyring, conversation.session_id, request.body.text)),
      )
      return reply.redirect(`/app/conversations/${conversation.session_id}?done=replied`, 303)
    },
  )
}
