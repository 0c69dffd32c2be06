import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { MessageKey } from '../../domain/i18n/translator.ts'
import {
  DELIVERIES,
  NOTICE_KINDS,
  notificationChoices,
  setNotificationChoices,
  type NoticeDelivery,
  type NoticeKind,
} from '../../domain/notifications/settings.ts'
import { html } from '../../infra/html.ts'
import { auditedChange } from '../audited-change.ts'
import { roleAllows } from '../../domain/accounts/members.ts'

const KIND_WORDS: Record<NoticeKind, MessageKey> = {
  contact_form: 'notify.settings.kind.contact_form',
  assistant_lead: 'notify.settings.kind.assistant_lead',
  handoff: 'notify.settings.kind.handoff',
}
const DELIVERY_WORDS: Record<NoticeDelivery, MessageKey> = {
  instant: 'notify.settings.instant',
  digest: 'notify.settings.digest',
  none: 'notify.settings.none',
}

const Delivery = Type.Union(DELIVERIES.map((delivery) => Type.Literal(delivery)))
const Body = Type.Object(
  {
    _csrf: Type.Optional(Type.String({ maxLength: 200 })),
    contact_form: Delivery,
    assistant_lead: Delivery,
    handoff: Delivery,
  },
  { additionalProperties: false },
)

/**
 * GET/POST /app/notifications (DESIGN.md 17): how the signed-in person hears of what visitors send
 * to the account's sites, per kind: a mail at once, a daily summary, or nothing. Owners and
 * editors get these mails; a viewer sees why they get none.
 */
export default async function notificationsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()

  routes.get(
    '/notifications',
    {
      config: { operation: 'dashboard.notifications', role: 'viewer' },
      schema: {
        hide: true,
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const { t, person } = request
      const title = t.t('notify.settings.title')
      const notice = request.query.done === 'saved' ? { notice: t.t('notify.settings.saved') } : undefined
      if (!person.userId || !roleAllows(person.role, 'editor'))
        return reply.page(title, 'leads', html`<section class="card"><p>${t.t('notify.settings.viewer')}</p></section>`, notice)
      const rows = await app.db
        .selectFrom('notification_settings')
        .select(['kind', 'unsubscribed_at'])
        .where('user_id', '=', person.userId)
        .where('account_id', '=', person.accountId)
        .where('unsubscribed_at', 'is not', null)
        .execute()
      const stoppedOn = new Map(rows.map((row) => [row.kind, row.unsubscribed_at!]))
      const choices = await notificationChoices(app.db, person.userId, person.accountId)
      return reply.page(
        title,
        'leads',
        html`<section class="card"><p>${t.t('notify.settings.intro', { email: person.email })}</p>
<form method="post" action="/app/notifications"><input type="hidden" name="_csrf" value="${reply.formToken()}">
${NOTICE_KINDS.map(
  (kind) => html`<fieldset class="field"><legend>${t.t(KIND_WORDS[kind])}</legend>
${DELIVERIES.map(
  (delivery) =>
    html`<label class="check"><input type="radio" name="${kind}" value="${delivery}"${choices[kind] === delivery ? html` checked` : ''}> ${t.t(DELIVERY_WORDS[delivery])}</label>`,
)}
${stoppedOn.has(kind) && choices[kind] === 'none' ? html`<p class="muted">${t.t('notify.settings.unsubscribed', { date: t.date(stoppedOn.get(kind)!) })}</p>` : ''}</fieldset>`,
)}
<button type="submit">${t.t('notify.settings.save')}</button></form></section>`,
        notice,
      )
    },
  )

  routes.post(
    '/notifications',
    { config: { operation: 'dashboard.notifications.save', role: 'editor' }, schema: { hide: true, body: Body } },
    async (request, reply) => {
      const { userId, accountId } = request.person
      const { _csrf: _, ...choices } = request.body
      if (userId) await auditedChange(request, (trx) => setNotificationChoices(trx, userId, accountId, choices))
      return reply.redirect('/app/notifications?done=saved', 303)
    },
  )
}
