import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { loadEmailHasher, normaliseEmail } from '../../domain/accounts/email-lookup.ts'
import {
  inviteMember,
  listPendingInvitations,
  mailInvitation,
  withdrawInvitation,
  type InvitationDeps,
} from '../../domain/accounts/invitations.ts'
import { changeRole, isRole, listMembers, removeMember, ROLES, type Role } from '../../domain/accounts/members.ts'
import { seatFree, seatUsage, type SeatUsage } from '../../domain/accounts/seats.ts'
import { addOnAvailable, addOnTerms, cheapestPlan, planEntitlements, within } from '../../domain/accounts/entitlements.ts'
import { classify, errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { auditedChange, recordRefusal } from '../audited-change.ts'
import { actionForm, dataTable } from '../layout.ts'
import type { Translator } from '../../domain/i18n/translator.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const UserParams = Type.Object({ id: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }) })
const InvitationParams = Type.Object({ id: Type.String({ pattern: '^inv_[A-Za-z0-9_-]{1,64}$' }) })
const RoleField = Type.String({ maxLength: 20 })

/** A role's name as the role menus show it. */
const roleName = (t: Translator, role: Role) => t.t(`team.role.${role}`)

function roleOf(t: Translator, value: string): Role {
  if (!isRole(value)) throw new errors.validationFailed(t.t('team.error.role'))
  return value
}

function roleSelect(t: Translator, id: string, label: SafeHtml | string, selected: Role): SafeHtml {
  return html`<label for="${id}">${label}</label><select id="${id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${roleName(t, r)}</option>`)}</select>`
}

function seatLine(t: Translator, usage: SeatUsage): SafeHtml {
  const counts = { members: usage.members, pending: usage.pending, taken: usage.members + usage.pending }
  return html`<p>${usage.seats === null ? t.t('team.seats.unlimitedLine', counts) : t.t('team.seats.line', { ...counts, seats: usage.seats })}</p>`
}

const seatCount = (t: Translator, n: number | null) => (n === null ? t.t('team.seats.unlimited') : t.t('team.seats.count', { n }))

/**
 * What an account without a free seat is told, in the page's language and the price list's names
 * (no ids): what it has, and what allows one more (as seatsMessage says it to the API).
 */
function seatsFull(t: Translator, usage: SeatUsage): string {
  const bigger = cheapestPlan((e) => within(usage.members + usage.pending + 1, e.seats))
  const biggerName = bigger ? planEntitlements(bigger).name : 'none'
  const biggerSeats = bigger ? seatCount(t, planEntitlements(bigger).seats) : ''
  const upgrade = addOnAvailable(usage.plan, 'extra_seat')
    ? t.t('team.seats.oneMore', { bigger: biggerName, biggerSeats })
    : t.t('team.seats.fromPlan', { from: planEntitlements(addOnTerms('extra_seat').availableFrom).name, bigger: biggerName, biggerSeats })
  return t.t('team.seats.full', {
    plan: planEntitlements(usage.plan).name,
    included: seatCount(t, planEntitlements(usage.plan).seats),
    extra: usage.extra,
    seats: usage.seats ?? 0,
    members: usage.members,
    pending: usage.pending,
    upgrade,
  })
}

/**
 * Members (owners only): who belongs to the account with which role, changing roles and removing
 * members (never the last owner), the pending invitations with withdraw, and inviting by email
 * within the seats of the plan and the extra_seat add-on.
 */
export default async function membersSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const deps: InvitationDeps = { keyring: app.keyring, emailHash: await loadEmailHasher(app.db, app.keyring), baseUrl: app.config.BASE_URL }

  async function page(request: FastifyRequest, csrf: string, invite: { email?: string; role?: Role } = {}): Promise<SafeHtml> {
    const { accountId, userId } = request.person
    const t = request.t
    const [members, pending, usage] = await Promise.all([
      listMembers(app.db, app.keyring, accountId),
      listPendingInvitations(app.db, app.keyring, accountId),
      seatUsage(app.db, accountId),
    ])
    return html`<p class="muted">${t.t('team.roleHint')}</p>
${dataTable(
  t.t('team.members'),
  [t.t('team.col.email'), t.t('team.col.role'), t.t('team.col.joined'), t.t('team.col.actions')],
  members.map((m) => [
    html`${m.email}${m.id === userId ? html` <span class="muted">${t.t('team.you')}</span>` : ''}`,
    html`<form method="post" action="/app/members/${m.id}/role" class="inline"><input type="hidden" name="_csrf" value="${csrf}">${roleSelect(t, `role-${m.id}`, html`<span class="sr-only">${t.t('team.roleOf', { email: m.email })}</span>`, m.role)} <button type="submit" class="secondary">${t.rich('team.saveRole', { email: m.email }, { hidden: (words) => html`<span class="sr-only">${words}</span>` })}</button></form>`,
    t.dateTime(m.created_at),
    // Removing asks once, on a page of its own (as deleting a page or a block does).
    html`<a href="/app/members/${m.id}/remove">${m.id === userId ? t.t('team.leave') : t.t('team.remove', { email: m.email })}</a>`,
  ]),
)}
<h2>${t.t('team.pending')}</h2>
${
  pending.length === 0
    ? html`<p>${t.t('team.pending.none')}</p>`
    : dataTable(
        t.t('team.pending'),
        [t.t('team.col.email'), t.t('team.col.role'), t.t('team.col.validUntil'), t.t('team.col.actions')],
        pending.map((i) => [
          i.email,
          roleName(t, i.role),
          t.dateTime(i.expires_at),
          actionForm(`/app/members/invitations/${i.id}/withdraw`, csrf, t.t('team.withdraw', { email: i.email }), { kind: 'secondary' }),
        ]),
      )
}
<h2>${t.t('team.invite.title')}</h2>
${seatLine(t, usage)}
${seatFree(usage) ? '' : html`<p class="error">${seatsFull(t, usage)} <a href="/app/billing">${t.t('team.seats.change')}</a>.</p>`}
<form method="post" action="/app/members/invite" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<label for="invite-email">${t.t('team.invite.email')}</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${invite.email ?? ''}">
${roleSelect(t, 'invite-role', t.t('team.col.role'), invite.role ?? 'editor')}
<p class="hint">${t.t('team.invite.hint')}</p>
<p><button type="submit">${t.t('team.invite.submit')}</button></p></form>`
  }

  /** A refused invitation in the page's language: the address, a member already, too many mails, no seat left. */
  async function inviteRefusal(request: FastifyRequest<{ Body: { email: string } }>, refusal: { code: string }): Promise<string> {
    const t = request.t
    const email = normaliseEmail(request.body.email)
    if (refusal.code === 'conflict') return t.t('team.error.member', { email })
    if (refusal.code === 'rate_limited') return t.t('team.error.tooMany', { email })
    if (refusal.code === 'plan_limit') return seatsFull(t, await seatUsage(app.db, request.person.accountId))
    return t.t('team.error.email')
  }

  routes.get('/members', { config: { operation: 'dashboard.members.list' }, schema: { hide: true } }, async (request, reply) =>
    reply.page(request.t.t('team.title'), 'members', await page(request, reply.formToken())),
  )

  routes.post(
    '/members/invite',
    {
      config: { operation: 'dashboard.members.invite' },
      schema: {
        hide: true,
        body: Type.Object({ ...Form, email: Type.String({ maxLength: 254 }), role: RoleField }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const t = request.t
      const role = roleOf(t, request.body.role)
      try {
        const invited = await auditedChange(request, (trx) =>
          inviteMember(trx, deps, {
            accountId: request.person.accountId,
            email: request.body.email,
            role,
            invitedBy: request.person.userId,
            language: t.lang,
          }),
        )
        await mailInvitation(app.db, app.mailer, invited)
      } catch (error) {
        // The refusal (an address, a member already, no seat left) is shown above the form, which keeps what was typed.
        const refusal = classify(error as FastifyError)
        if (!['validation_failed', 'conflict', 'plan_limit', 'rate_limited'].includes(refusal.code)) throw error
        reply.code(refusal.status)
        await recordRefusal(request, refusal.status)
        return reply.page(t.t('team.title'), 'members', await page(request, reply.formToken(), { email: request.body.email, role }), {
          error: await inviteRefusal(request, refusal),
        })
      }
      return reply.redirect('/app/members?done=invited', 303)
    },
  )

  routes.post(
    '/members/:id/role',
    {
      config: { operation: 'dashboard.members.role' },
      schema: { hide: true, params: UserParams, body: Type.Object({ ...Form, role: RoleField }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const role = roleOf(request.t, request.body.role)
      await auditedChange(request, (trx) => changeRole(trx, request.person.accountId, request.params.id, role))
      // An owner who gave themselves a lesser role no longer opens this page.
      return reply.redirect(
        request.params.id === request.person.userId && role !== 'owner' ? '/app?done=role-changed' : '/app/members?done=role-changed',
        303,
      )
    },
  )

  routes.get(
    '/members/:id/remove',
    { config: { operation: 'dashboard.members.confirmRemove' }, schema: { hide: true, params: UserParams } },
    async (request, reply) => {
      const t = request.t
      const member = (await listMembers(app.db, app.keyring, request.person.accountId)).find((m) => m.id === request.params.id)
      if (!member) throw new errors.notFound(t.t('team.error.noMember'))
      const self = member.id === request.person.userId
      return reply.page(
        self ? t.t('team.leave.title') : t.t('team.remove.title', { email: member.email }),
        'members',
        html`<p>${self ? t.t('team.leave.text') : t.t('team.remove.text', { email: member.email, role: t.t(`role.${member.role}`) })}</p>
<form method="post" action="/app/members/${member.id}/remove" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">${self ? t.t('team.leave') : t.t('team.remove', { email: member.email })}</button> <a href="/app/members">${self ? t.t('team.leave.stay') : t.t('team.remove.keep')}</a></form>`,
      )
    },
  )

  routes.post(
    '/members/:id/remove',
    {
      config: { operation: 'dashboard.members.remove' },
      schema: { hide: true, params: UserParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => removeMember(trx, request.person.accountId, request.params.id))
      return reply.redirect(request.params.id === request.person.userId ? '/app?done=left' : '/app/members?done=member-removed', 303)
    },
  )

  routes.post(
    '/members/invitations/:id/withdraw',
    {
      config: { operation: 'dashboard.members.withdraw' },
      schema: { hide: true, params: InvitationParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => withdrawInvitation(trx, request.person.accountId, request.params.id))
      return reply.redirect('/app/members?done=invitation-withdrawn', 303)
    },
  )
}
