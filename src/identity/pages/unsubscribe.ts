import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { MessageKey } from '../../domain/i18n/translator.ts'
import { requestTranslator } from '../../domain/i18n/request.ts'
import { kindsToStop, unsubscribe } from '../../domain/notifications/settings.ts'
import { unsubscribeTokens, type UnsubscribeKind, type UnsubscribeTarget } from '../../domain/notifications/unsubscribe-token.ts'
import { html } from '../../infra/html.ts'
import { page, sendPage } from './shell.ts'
import { userById, type User } from '../stores/users.ts'

const Html = Type.String({ description: 'HTML page' })
const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 300 }) })

const WHAT: Record<UnsubscribeKind, MessageKey> = {
  contact_form: 'notify.what.contact_form',
  assistant_lead: 'notify.what.assistant_lead',
  handoff: 'notify.what.handoff',
  digest: 'notify.what.digest',
}

/**
 * The unsubscribe link of a notification mail (DESIGN.md 17): it works without signing in, since
 * the signed token names the person, the account and the kind. GET shows what it stops and a
 * button; POST stops it: the button, or a mail program's one-click unsubscribe (RFC 8058, body
 * `List-Unsubscribe=One-Click`), which carries no cookie and no CSRF token, so none is asked for:
 * the token in the address is the whole authority, and it can do nothing but stop mails. The
 * change lands in the account's audit log as notifications.unsubscribe. An altered or foreign
 * token is 404 and changes nothing.
 */
export default async function unsubscribeRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  // A mail program may post the one-click body as multipart/form-data; nothing in it is read.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: 1024 }, (_request, _body, done) => done(null, {}))

  /** The token's target and person, the page speaking their language; or the refusal page sent. */
  async function target(request: FastifyRequest, reply: FastifyReply): Promise<{ target: UnsubscribeTarget; person: User } | undefined> {
    const found = (await unsubscribeTokens(app.db, app.keyring)).verify((request.params as { token: string }).token)
    const person = found && (await userById(app.db, app.keyring, found.userId))
    if (found && person) {
      request.t = requestTranslator(request, person.language)
      return { target: found, person }
    }
    const t = request.t
    await sendPage(reply, 404, page(t.t('notify.unsub.invalid.title'), html`<p>${t.t('notify.unsub.invalid')}</p>`))
    return undefined
  }

  typed.get(
    '/unsubscribe/:token',
    {
      config: { operation: 'notifications.unsubscribe_page' },
      schema: {
        summary: 'What a notification mail’s unsubscribe link stops, with a button to stop it',
        tags: ['sign-in'],
        params: Params,
        response: { 200: Html, 404: Html },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer')
      const found = await target(request, reply)
      if (!found) return reply
      const { t } = request
      const words = { email: found.person.email, what: t.t(WHAT[found.target.kind]) }
      const stoppable = await kindsToStop(app.db, found.target)
      return sendPage(
        reply,
        200,
        page(
          t.t('notify.unsub.title'),
          stoppable.length === 0
            ? html`<p>${t.t('notify.unsub.already', words)}</p>`
            : html`<p>${t.t('notify.unsub.question', words)}</p>
<form method="post" action="/unsubscribe/${request.params.token}"><button type="submit">${t.t('notify.unsub.button')}</button></form>`,
        ),
      )
    },
  )

  typed.post(
    '/unsubscribe/:token',
    {
      config: { operation: 'notifications.unsubscribe' },
      schema: {
        summary: 'Stop the mails a notification mail’s unsubscribe link names (RFC 8058 one-click too)',
        tags: ['sign-in'],
        params: Params,
        consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
        response: { 200: Html, 404: Html },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer')
      const found = await target(request, reply)
      if (!found) return reply
      const { userId, accountId } = found.target
      const entry = {
        accountId,
        userId,
        tokenId: null,
        clientId: null,
        operation: 'notifications.unsubscribe',
        method: 'POST',
        path: '/unsubscribe/:token',
        status: 200,
        requestId: request.id,
        ip: request.ip,
      }
      const stopped = await app.frame.auditedChange(app.db, entry, (trx) => unsubscribe(trx, found.target))
      request.log.info({ kinds: stopped, account: accountId }, 'notifications stopped by an unsubscribe link')
      const { t } = request
      return sendPage(
        reply,
        200,
        page(
          t.t('notify.unsub.done.title'),
          html`<p>${t.rich(
            'notify.unsub.done',
            { email: found.person.email, what: t.t(WHAT[found.target.kind]) },
            { link: (words) => html`<a href="/app/notifications">${words}</a>` },
          )}</p>`,
        ),
      )
    },
  )
}
