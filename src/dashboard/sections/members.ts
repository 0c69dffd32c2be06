import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { loadEmailHasher } from '../../domain/accounts/email-lookup.ts'
import {
  inviteMember,
  listPendingInvitations,
  mailInvitation,
  withdrawInvitation,
  type InvitationDeps,
} from '../../domain/accounts/invitations.ts'
import { changeRole, isRole, listMembers, removeMember, ROLES, type Role } from '../../domain/accounts/members.ts'
import { seatFree, seatsMessage, seatUsage, type SeatUsage } from '../../domain/accounts/seats.ts'
import { classify, errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { auditedChange, recordRefusal } from '../audited-change.ts'
import { actionForm, dataTable, when } from '../layout.ts'
import { plainPlanWords } from '../refusal-words.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const UserParams = Type.Object({ id: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }) })
const InvitationParams = Type.Object({ id: Type.String({ pattern: '^inv_[A-Za-z0-9_-]{1,64}$' }) })
const RoleField = Type.String({ maxLength: 20 })

const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' }
const ROLE_HINT =
  'Owners do everything, members and webhooks included; editors work on sites, pages, domains, publishing, leads and conversations; viewers only read.'

function roleOf(value: string): Role {
  if (!isRole(value)) throw new errors.validationFailed('Choose owner, editor or viewer')
  return value
}

function roleSelect(id: string, label: SafeHtml | string, selected: Role): SafeHtml {
  return html`<label for="${id}">${label}</label><select id="${id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${ROLE_NAMES[r]}</option>`)}</select>`
}

function seatLine(usage: SeatUsage): SafeHtml {
  const taken = usage.members + usage.pending
  if (usage.seats === null)
    return html`<p>${taken} people (${usage.members} members, ${usage.pending} pending); your plan has unlimited seats.</p>`
  return html`<p>${taken} of ${usage.seats} seats taken (${usage.members} ${usage.members === 1 ? 'member' : 'members'}, ${usage.pending} pending).</p>`
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
    const [members, pending, usage] = await Promise.all([
      listMembers(app.db, app.keyring, accountId),
      listPendingInvitations(app.db, app.keyring, accountId),
      seatUsage(app.db, accountId),
    ])
    return html`<p class="muted">${ROLE_HINT}</p>
${dataTable(
  'Members of this account',
  ['Email', 'Role', 'Joined', 'Actions'],
  members.map((m) => [
    html`${m.email}${m.id === userId ? html` <span class="muted">(you)</span>` : ''}`,
    html`<form method="post" action="/app/members/${m.id}/role" class="inline"><input type="hidden" name="_csrf" value="${csrf}">${roleSelect(`role-${m.id}`, html`<span class="sr-only">Role of ${m.email}</span>`, m.role)} <button type="submit" class="secondary">Save<span class="sr-only"> the role of ${m.email}</span></button></form>`,
    when(m.created_at),
    // Removing asks once, on a page of its own (as deleting a page or a block does).
    html`<a href="/app/members/${m.id}/remove">${m.id === userId ? 'Leave the account' : `Remove ${m.email}`}</a>`,
  ]),
)}
<h2>Pending invitations</h2>
${
  pending.length === 0
    ? html`<p>No invitations are pending.</p>`
    : dataTable(
        'Pending invitations',
        ['Email', 'Role', 'Link valid until', 'Actions'],
        pending.map((i) => [
          i.email,
          ROLE_NAMES[i.role],
          when(i.expires_at),
          actionForm(`/app/members/invitations/${i.id}/withdraw`, csrf, `Withdraw the invitation of ${i.email}`, { kind: 'secondary' }),
        ]),
      )
}
<h2>Invite someone</h2>
${seatLine(usage)}
${seatFree(usage) ? '' : html`<p class="error">${plainPlanWords(seatsMessage(usage))} <a href="/app/billing">Change your plan or add seats</a>.</p>`}
<form method="post" action="/app/members/invite" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<label for="invite-email">Email address</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${invite.email ?? ''}">
${roleSelect('invite-role', 'Role', invite.role ?? 'editor')}
<p class="hint">We mail them a link that works once, for 7 days. They sign in with a code sent to that address.</p>
<p><button type="submit">Send invitation</button></p></form>`
  }

  routes.get('/members', { config: { operation: 'dashboard.members.list' }, schema: { hide: true } }, async (request, reply) =>
    reply.page('Members', 'members', await page(request, reply.formToken())),
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
      const role = roleOf(request.body.role)
      try {
        const invited = await auditedChange(request, (trx) =>
          inviteMember(trx, deps, {
            accountId: request.person.accountId,
            email: request.body.email,
            role,
            invitedBy: request.person.userId,
          }),
        )
        await mailInvitation(app.db, app.mailer, invited)
      } catch (error) {
        // The refusal (an address, a member already, no seat left) is shown above the form, which keeps what was typed.
        const refusal = classify(error as FastifyError)
        if (!['validation_failed', 'conflict', 'plan_limit', 'rate_limited'].includes(refusal.code)) throw error
        reply.code(refusal.status)
        await recordRefusal(request, refusal.status)
        return reply.page('Members', 'members', await page(request, reply.formToken(), { email: request.body.email, role }), {
          error: refusal.code === 'plan_limit' ? plainPlanWords(refusal.detail) : refusal.detail,
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
      const role = roleOf(request.body.role)
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
      const member = (await listMembers(app.db, app.keyring, request.person.accountId)).find((m) => m.id === request.params.id)
      if (!member) throw new errors.notFound('There is no such member in your account')
      const self = member.id === request.person.userId
      return reply.page(
        self ? 'Leave this account?' : `Remove ${member.email}?`,
        'members',
        html`<p>${
          self
            ? 'You lose access to this account at once, and your API tokens of this account are revoked. An owner can invite you again.'
            : html`${member.email} (${ROLE_NAMES[member.role].toLowerCase()}) loses access to this account at once, and their API tokens of this account are revoked. You can invite them again later.`
        }</p>
<form method="post" action="/app/members/${member.id}/remove" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">${self ? 'Leave the account' : `Remove ${member.email}`}</button> <a href="/app/members">${self ? 'Stay' : 'Keep them'}</a></form>`,
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
