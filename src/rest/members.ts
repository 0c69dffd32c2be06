import { negotiateLanguage } from '../domain/i18n/translator.ts'
import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { loadEmailHasher } from '../domain/accounts/email-lookup.ts'
import {
  inviteMember,
  listPendingInvitations,
  mailInvitation,
  withdrawInvitation,
  type InvitationDeps,
} from '../domain/accounts/invitations.ts'
import { listMembers, ROLES } from '../domain/accounts/members.ts'
import { literalUnion } from '../schemas.ts'
import { auditedChange } from './audited-change.ts'
import { envelopeOfAll, ListEnvelope, ListQuery, notFound, sendItem } from './http.ts'

const Role = Type.Union(literalUnion(ROLES).anyOf, {
  description:
    'owner: everything, members included; editor: sites, pages, blocks, domains, publishing, leads and conversations; viewer: reads only',
})
const InvitationId = Type.String({ pattern: '^inv_[A-Za-z0-9_-]{22}$', description: 'inv_…' })

const Member = Type.Object(
  {
    id: Type.String({ description: 'The person, usr_…' }),
    email: Type.String(),
    role: Role,
    created_at: Type.String({ format: 'date-time', description: 'When they joined the account.' }),
  },
  { additionalProperties: false, description: 'A member of the account' },
)

const Invitation = Type.Object(
  {
    id: InvitationId,
    email: Type.String(),
    role: Role,
    state: literalUnion(['pending', 'accepted', 'withdrawn', 'expired'] as const),
    invited_by: Type.Union([Type.String({ description: 'usr_…' }), Type.Null()], { description: 'The owner who invited.' }),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: 'The link works once, until then (7 days).' }),
  },
  { additionalProperties: false, description: 'An invitation to the account' },
)

const NewInvitation = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      description: 'Where the link is mailed; the invitee signs in with a code sent there.',
    }),
    role: Type.Optional(
      Type.Union(literalUnion(ROLES).anyOf, { default: 'editor', description: 'The role the invitee gets; editor by default.' }),
    ),
  },
  { additionalProperties: false },
)
const IdParams = Type.Object({ id: InvitationId }, { additionalProperties: false })

/**
 * The account's members (DESIGN.md 12, Teams): every member lists them (read:sites); owners
 * invite people by email (plan pro and above, as every change through the API) and see and
 * withdraw the pending invitations. An invitation beyond the seats is refused with 403 plan_limit
 * naming the upgrade. Roles are changed and members removed in the dashboard.
 */
export default async function memberRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const deps: InvitationDeps = { keyring: app.keyring, emailHash: await loadEmailHasher(app.db, app.keyring), baseUrl: app.config.BASE_URL }

  typed.get(
    '/account/members',
    {
      config: { operation: 'account.members.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the members of the account',
        tags: ['account'],
        querystring: ListQuery,
        response: { 200: ListEnvelope(Member, 'Members: owners first, then by when they joined') },
      },
    },
    async (request) => envelopeOfAll(await listMembers(app.db, app.keyring, request.principal.accountId), request.query),
  )

  typed.post(
    '/account/members',
    {
      config: { operation: 'account.members.invite', scope: 'manage:tokens', access: 'write', role: 'owner' },
      schema: { summary: 'Invite a person to the account by email', tags: ['account'], body: NewInvitation, response: { 201: Invitation } },
    },
    async (request, reply) => {
      const invited = await auditedChange(
        request,
        (trx) =>
          inviteMember(trx, deps, {
            accountId: request.principal.accountId,
            email: request.body.email,
            role: request.body.role ?? 'editor',
            invitedBy: request.principal.userId,
            // The invitee's mail in the language the caller asks in (Accept-Language), else English.
            language: negotiateLanguage(request.headers['accept-language']),
          }),
        201,
      )
      // Mailed once committed: a link nobody received does not stay pending (503, and the key is free again).
      const invitation = await mailInvitation(app.db, app.mailer, invited)
      return sendItem(reply.code(201).header('location', `/v1/account/invitations/${invitation.id}`), invitation)
    },
  )

  typed.get(
    '/account/invitations',
    {
      config: { operation: 'account.invitations.list', scope: 'manage:tokens', access: 'read', role: 'owner' },
      schema: {
        summary: 'List the pending invitations',
        tags: ['account'],
        querystring: ListQuery,
        response: { 200: ListEnvelope(Invitation, 'Pending invitations, newest first') },
      },
    },
    async (request) => envelopeOfAll(await listPendingInvitations(app.db, app.keyring, request.principal.accountId), request.query),
  )

  typed.get(
    '/account/invitations/:id',
    {
      config: { operation: 'account.invitations.get', scope: 'manage:tokens', access: 'read', role: 'owner' },
      schema: { summary: 'Get a pending invitation', tags: ['account'], params: IdParams, response: { 200: Invitation } },
    },
    async (request, reply) => {
      const found = (await listPendingInvitations(app.db, app.keyring, request.principal.accountId)).find(
        (invitation) => invitation.id === request.params.id,
      )
      if (!found) throw notFound('Invitation')
      return sendItem(reply, found)
    },
  )

  typed.delete(
    '/account/invitations/:id',
    {
      config: { operation: 'account.invitations.withdraw', scope: 'manage:tokens', access: 'write', role: 'owner' },
      schema: {
        summary: 'Withdraw a pending invitation (its link then says so)',
        tags: ['account'],
        params: IdParams,
        response: { 204: Type.Null({ description: 'Withdrawn' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => withdrawInvitation(trx, request.principal.accountId, request.params.id), 204)
      return reply.code(204).send(null)
    },
  )
}
