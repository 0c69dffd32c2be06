import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { API_SCOPES, createApiToken, findApiToken, listApiTokens, revokeApiToken, rotateApiToken, tokenHolder } from '../../domain/accounts/api-tokens.ts'
import { listMembers } from '../../domain/accounts/members.ts'
import { errors } from '../../errors.ts'
import type { FastifyRequest } from 'fastify'
import { html, type SafeHtml } from '../../infra/html.ts'
import { actionForm, dataTable, shownOnce, when } from '../layout.ts'
import { audited } from '../audited.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const Id = Type.Object({ id: Type.String({ pattern: '^tok_[A-Za-z0-9_-]{1,64}$' }) })

/**
 * API tokens: create with scopes, rotate in one click (the new secret shown once), revoke. A token
 * acts as the member who made it, with their role; every member manages their own tokens, an
 * owner every token of the account (with who made it).
 */
export default async function tokensSection(app: FastifyInstance) {
  const { db } = app

  async function list(request: FastifyRequest, csrf: string): Promise<SafeHtml> {
    const { accountId, role } = request.person
    const owner = role === 'owner'
    const { rows } = await listApiTokens(db, accountId, 100, 0, tokenHolder(request.person))
    const emails = owner ? new Map((await listMembers(db, app.keyring, accountId)).map((m) => [m.id, m.email])) : new Map<string, string>()
    const madeBy = (userId: string | null) => (userId === null ? 'the operator' : (emails.get(userId) ?? 'a former member'))
    const title = owner ? 'Tokens of the account' : 'Your tokens'
    return html`<h2>${title}</h2>${rows.length === 0
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
            html`${actionForm(`/app/tokens/${t.id}/rotate`, csrf, `Rotate ${t.name}`, { kind: 'secondary' })}${actionForm(`/app/tokens/${t.id}/revoke`, csrf, `Revoke ${t.name}`, { kind: 'danger' })}`,
          ]),
        )}
<h2>Create a token</h2>
<form method="post" action="/app/tokens" class="card"><input type="hidden" name="_csrf" value="${csrf}">
<label for="token-name">Name</label><input id="token-name" name="name" required maxlength="100">
<fieldset><legend>Scopes</legend>${API_SCOPES.map((scope) => html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"> ${scope}</label>`)}</fieldset>
<label for="token-expiry">Expires in (days, empty for never)</label><input id="token-expiry" name="expires_in_days" type="number" min="1" max="3650">
<p><button type="submit">Create token</button></p></form>`
  }

  app.get('/tokens', { config: { operation: 'dashboard.tokens.list' }, schema: { hide: true } }, async (request, reply) =>
    reply.page('API tokens', 'tokens', await list(request, reply.formToken())),
  )

  app.post<{ Body: { name: string; scopes?: string | string[]; expires_in_days?: string } }>(
    '/tokens',
    {
      config: { operation: 'dashboard.tokens.create' },
      preHandler: app.csrfProtection,
      schema: {
        hide: true,
        body: Type.Object({ ...Form, name: Type.String({ minLength: 1, maxLength: 100 }), scopes: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])), expires_in_days: Type.Optional(Type.String({ pattern: '^[0-9]{0,4}$' })) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const scopes = [request.body.scopes ?? []].flat()
      if (scopes.length === 0 || !scopes.every((s) => (API_SCOPES as readonly string[]).includes(s))) throw new errors.validationFailed('Choose at least one scope')
      const days = Number(request.body.expires_in_days || 0)
      const { secret, token } = await audited(request, (trx) =>
        createApiToken(trx, { accountId: request.person.accountId, userId: request.person.userId, name: request.body.name.trim(), scopes, expiresAt: days > 0 ? new Date(Date.now() + days * 86_400_000) : null }),
      200)
      const csrf = reply.formToken()
      return reply.page('API tokens', 'tokens', html`${shownOnce(`New token ${token.name}`, secret)}${await list(request, csrf)}`, { notice: 'The token was created.' })
    },
  )

  app.post<{ Params: { id: string } }>(
    '/tokens/:id/rotate',
    { config: { operation: 'dashboard.tokens.rotate' }, preHandler: app.csrfProtection, schema: { hide: true, params: Id, body: Type.Object(Form, { additionalProperties: false }) } },
    async (request, reply) => {
      const rotated = await audited(request, async (trx) => {
        const current = await findApiToken(trx, request.person.accountId, request.params.id, true, tokenHolder(request.person))
        if (!current || current.revoked_at) throw new errors.notFound('No such token')
        return rotateApiToken(trx, current.id, 3600)
      }, 200)
      const csrf = reply.formToken()
      return reply.page('API tokens', 'tokens', html`${shownOnce(`New secret of ${rotated.token.name}`, rotated.secret, 'The old secret keeps working for one hour.')}${await list(request, csrf)}`, { notice: 'The token was rotated.' })
    },
  )

  app.post<{ Params: { id: string } }>(
    '/tokens/:id/revoke',
    { config: { operation: 'dashboard.tokens.revoke' }, preHandler: app.csrfProtection, schema: { hide: true, params: Id, body: Type.Object(Form, { additionalProperties: false }) } },
    async (request, reply) => {
      await audited(request, async (trx) => {
        const current = await findApiToken(trx, request.person.accountId, request.params.id, true, tokenHolder(request.person))
        if (!current || current.revoked_at) throw new errors.notFound('No such token')
        await revokeApiToken(trx, current.id)
      })
      return reply.redirect('/app/tokens?done=token-revoked', 303)
    },
  )
}
