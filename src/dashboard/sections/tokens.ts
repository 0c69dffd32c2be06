import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import {
  API_SCOPES,
  createApiToken,
  findApiToken,
  listApiTokens,
  mayRotate,
  revokeApiToken,
  rotateApiToken,
  tokenHolder,
} from '../../domain/accounts/api-tokens.ts'
import { listMembers } from '../../domain/accounts/members.ts'
import { errors } from '../../errors.ts'
import type { FastifyRequest } from 'fastify'
import { html, type SafeHtml } from '../../infra/html.ts'
import { actionForm, dataTable, shownOnce, when } from '../layout.ts'
import { auditedChange } from '../audited-change.ts'
import {
  checks,
  field,
  FormBodySchema,
  formState,
  hidden,
  listOf,
  problems,
  refused,
  textOf,
  type FormBody,
  type FormState,
} from './editor/form.ts'

const NAME = { name: 'name', label: 'Name', hint: 'So you recognise the token later, for example the tool that uses it.', maxLength: 100 }
const SCOPES = { name: 'scopes', label: 'Scopes', hint: 'What the token may do.' }
const EXPIRY = {
  name: 'expires_in_days',
  label: 'Expires in (days)',
  hint: 'A whole number from 1 to 3650; empty for never.',
  optional: true,
}
const LABELS = { name: NAME.label, scopes: SCOPES.label, expires_in_days: EXPIRY.label }

/** The problems of a new token's form, by field, in plain words. */
function tokenErrors(values: { name: string; scopes: string[]; expires_in_days: string }): Record<string, string> {
  const wrong: Record<string, string> = {}
  const name = values.name.trim()
  if (name === '') wrong['name'] = 'Fill this in.'
  else if (name.length > 100) wrong['name'] = 'Use at most 100 characters.'
  if (values.scopes.length === 0) wrong['scopes'] = 'Choose at least one scope.'
  else if (!values.scopes.every((s) => (API_SCOPES as readonly string[]).includes(s))) wrong['scopes'] = 'Choose among the scopes shown.'
  const days = values.expires_in_days.trim()
  if (days !== '' && (!/^[0-9]{1,4}$/.test(days) || Number(days) < 1 || Number(days) > 3650))
    wrong['expires_in_days'] = 'Enter a whole number of days from 1 to 3650, or leave it empty for a token that does not expire.'
  return wrong
}

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const Id = Type.Object({ id: Type.String({ pattern: '^tok_[A-Za-z0-9_-]{1,64}$' }) })

/**
 * API tokens: create with scopes, rotate in one click (the new secret shown once), revoke. A token
 * acts as the member who made it, with their role; every member manages their own tokens, an
 * owner every token of the account (with who made it).
 */
export default async function tokensSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const { db } = app

  async function list(
    request: FastifyRequest,
    csrf: string,
    state: FormState = formState({ name: '', scopes: '', expires_in_days: '' }),
  ): Promise<SafeHtml> {
    const { accountId, role } = request.person
    const owner = role === 'owner'
    const { rows } = await listApiTokens(db, accountId, { limit: 100, offset: 0 }, tokenHolder(request.person))
    const emails = owner ? new Map((await listMembers(db, app.keyring, accountId)).map((m) => [m.id, m.email])) : new Map<string, string>()
    const madeBy = (userId: string | null) => (userId === null ? 'the operator' : (emails.get(userId) ?? 'a former member'))
    const title = owner ? 'Tokens of the account' : 'Your tokens'
    return html`<h2>${title}</h2>${
      rows.length === 0
        ? html`<p>No tokens yet.</p>`
        : dataTable(
            title,
            [...(owner ? ['Made by'] : []), 'Name', 'Id', 'Scopes', 'Expires', 'Last used', 'Actions'],
            rows.map((t) => [
              ...(owner ? [madeBy(t.user_id)] : []),
              t.name,
              html`<code>${t.id}</code>`,
              t.scopes.join(', '),
              when(t.expires_at),
              when(t.last_used_at),
              html`${mayRotate(t, request.person) ? actionForm(`/app/tokens/${t.id}/rotate`, csrf, `Rotate ${t.name}`, { kind: 'secondary' }) : ''}${actionForm(`/app/tokens/${t.id}/revoke`, csrf, `Revoke ${t.name}`, { kind: 'danger' })}`,
            ]),
          )
    }
<h2 id="create-token">Create a token</h2>
${problems(state, LABELS)}
<form method="post" action="/app/tokens#create-token" class="card" novalidate>${hidden(csrf)}
${field(state, NAME)}
${checks(
  state,
  SCOPES,
  API_SCOPES.map((scope) => [scope, scope] as const),
)}
${field(state, EXPIRY)}
<p><button type="submit">Create token</button></p></form>`
  }

  routes.get('/tokens', { config: { operation: 'dashboard.tokens.list' }, schema: { hide: true } }, async (request, reply) =>
    reply.page('API tokens', 'tokens', await list(request, reply.formToken())),
  )

  routes.post(
    '/tokens',
    { config: { operation: 'dashboard.tokens.create' }, schema: { hide: true, body: FormBodySchema } },
    async (request, reply) => {
      const scopes = listOf(request.body, 'scopes')
      const values = { name: textOf(request.body, 'name'), scopes, expires_in_days: textOf(request.body, 'expires_in_days') }
      const wrong = tokenErrors(values)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        const state = { values: { name: values.name, scopes: scopes.join(','), expires_in_days: values.expires_in_days }, errors: wrong }
        return reply.page('API tokens', 'tokens', await list(request, reply.formToken(), state))
      }
      const days = Number(values.expires_in_days.trim() || 0)
      const { secret, token } = await auditedChange(
        request,
        (trx) =>
          createApiToken(trx, {
            accountId: request.person.accountId,
            userId: request.person.userId,
            name: values.name.trim(),
            scopes,
            expiresAt: days > 0 ? new Date(Date.now() + days * 86_400_000) : null,
          }),
        200,
      )
      const csrf = reply.formToken()
      return reply.page('API tokens', 'tokens', html`${shownOnce(`New token ${token.name}`, secret)}${await list(request, csrf)}`, {
        notice: 'The token was created.',
      })
    },
  )

  routes.post(
    '/tokens/:id/rotate',
    {
      config: { operation: 'dashboard.tokens.rotate' },
      schema: { hide: true, params: Id, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const rotated = await auditedChange(
        request,
        async (trx) => {
          const current = await findApiToken(trx, request.person.accountId, request.params.id, true, tokenHolder(request.person))
          if (!current || current.revoked_at) throw new errors.notFound('No such token')
          if (!mayRotate(current, request.person))
            throw new errors.forbidden('Only the member who made this token may rotate it. You may revoke it.')
          return rotateApiToken(trx, current.id, 3600)
        },
        200,
      )
      const csrf = reply.formToken()
      return reply.page(
        'API tokens',
        'tokens',
        html`${shownOnce(`New secret of ${rotated.token.name}`, rotated.secret, 'The old secret keeps working for one hour.')}${await list(request, csrf)}`,
        { notice: 'The token was rotated.' },
      )
    },
  )

  routes.post(
    '/tokens/:id/revoke',
    {
      config: { operation: 'dashboard.tokens.revoke' },
      schema: { hide: true, params: Id, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, async (trx) => {
        const current = await findApiToken(trx, request.person.accountId, request.params.id, true, tokenHolder(request.person))
        if (!current || current.revoked_at) throw new errors.notFound('No such token')
        await revokeApiToken(trx, current.id)
      })
      return reply.redirect('/app/tokens?done=token-revoked', 303)
    },
  )
}
