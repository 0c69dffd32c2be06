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
import { actionForm, dataTable, shownOnce } from '../layout.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
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

/** The new token's form fields, in the page's language. */
function fields(t: Translator) {
  const name = { name: 'name', label: t.t('tokens.name'), hint: t.t('tokens.name.hint'), maxLength: 100 }
  const scopes = { name: 'scopes', label: t.t('tokens.scopes'), hint: t.t('tokens.scopes.hint') }
  const expiry = { name: 'expires_in_days', label: t.t('tokens.expiry'), hint: t.t('tokens.expiry.hint'), optional: true }
  return { name, scopes, expiry, labels: { name: name.label, scopes: scopes.label, expires_in_days: expiry.label } }
}

/** The problems of a new token's form, by field, in plain words. */
function tokenErrors(t: Translator, values: { name: string; scopes: string[]; expires_in_days: string }): Record<string, string> {
  const wrong: Record<string, string> = {}
  const name = values.name.trim()
  if (name === '') wrong['name'] = t.t('tokens.error.noName')
  else if (name.length > 100) wrong['name'] = t.t('tokens.error.nameLong')
  if (values.scopes.length === 0) wrong['scopes'] = t.t('tokens.error.noScope')
  else if (!values.scopes.every((s) => (API_SCOPES as readonly string[]).includes(s))) wrong['scopes'] = t.t('tokens.error.unknownScope')
  const days = values.expires_in_days.trim()
  if (days !== '' && (!/^[0-9]{1,4}$/.test(days) || Number(days) < 1 || Number(days) > 3650))
    wrong['expires_in_days'] = t.t('tokens.error.days')
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
    const t = request.t
    const form = fields(t)
    const owner = role === 'owner'
    const { rows } = await listApiTokens(db, accountId, { limit: 100, offset: 0 }, tokenHolder(request.person))
    const emails = owner ? new Map((await listMembers(db, app.keyring, accountId)).map((m) => [m.id, m.email])) : new Map<string, string>()
    const madeBy = (userId: string | null) => (userId === null ? t.t('tokens.byOperator') : (emails.get(userId) ?? t.t('tokens.byFormer')))
    const at = (date: Date | string | null) => (date ? t.dateTime(date) : t.t('common.none'))
    const title = owner ? t.t('tokens.ofAccount') : t.t('tokens.yours')
    return html`<h2>${title}</h2>${
      rows.length === 0
        ? html`<p>${t.t('tokens.none')}</p>`
        : dataTable(
            title,
            [
              ...(owner ? [t.t('tokens.col.madeBy')] : []),
              t.t('tokens.col.name'),
              t.t('tokens.col.id'),
              t.t('tokens.col.scopes'),
              t.t('tokens.col.expires'),
              t.t('tokens.col.lastUsed'),
              t.t('tokens.col.actions'),
            ],
            rows.map((token) => [
              ...(owner ? [madeBy(token.user_id)] : []),
              token.name,
              html`<code>${token.id}</code>`,
              token.scopes.join(', '),
              at(token.expires_at),
              at(token.last_used_at),
              html`${mayRotate(token, request.person) ? actionForm(`/app/tokens/${token.id}/rotate`, csrf, t.t('tokens.rotate', { name: token.name }), { kind: 'secondary' }) : ''}${actionForm(`/app/tokens/${token.id}/revoke`, csrf, t.t('tokens.revoke', { name: token.name }), { kind: 'danger' })}`,
            ]),
          )
    }
<h2 id="create-token">${t.t('tokens.create.title')}</h2>
${problems(state, form.labels)}
<form method="post" action="/app/tokens#create-token" class="card" novalidate>${hidden(csrf)}
${field(state, form.name)}
${checks(
  state,
  form.scopes,
  API_SCOPES.map((scope) => [scope, scope] as const),
)}
${field(state, form.expiry)}
<p><button type="submit">${t.t('tokens.create.submit')}</button></p></form>`
  }

  routes.get('/tokens', { config: { operation: 'dashboard.tokens.list' }, schema: { hide: true } }, async (request, reply) =>
    reply.page(request.t.t('tokens.title'), 'tokens', await list(request, reply.formToken())),
  )

  routes.post(
    '/tokens',
    { config: { operation: 'dashboard.tokens.create' }, schema: { hide: true, body: FormBodySchema } },
    async (request, reply) => {
      const scopes = listOf(request.body, 'scopes')
      const values = { name: textOf(request.body, 'name'), scopes, expires_in_days: textOf(request.body, 'expires_in_days') }
      const t = request.t
      const wrong = tokenErrors(t, values)
      if (Object.keys(wrong).length) {
        await refused(request, reply, 400)
        const state = { values: { name: values.name, scopes: scopes.join(','), expires_in_days: values.expires_in_days }, errors: wrong }
        return reply.page(t.t('tokens.title'), 'tokens', await list(request, reply.formToken(), state))
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
      return reply.page(
        t.t('tokens.title'),
        'tokens',
        html`${shownOnce(t, t.t('tokens.new', { name: token.name }), secret)}${await list(request, csrf)}`,
        { notice: t.t('tokens.created') },
      )
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
          if (!current || current.revoked_at) throw new errors.notFound(request.t.t('tokens.error.notFound'))
          if (!mayRotate(current, request.person)) throw new errors.forbidden(request.t.t('tokens.error.notYours'))
          return rotateApiToken(trx, current.id, 3600)
        },
        200,
      )
      const csrf = reply.formToken()
      const t = request.t
      return reply.page(
        t.t('tokens.title'),
        'tokens',
        html`${shownOnce(t, t.t('tokens.newSecret', { name: rotated.token.name }), rotated.secret, t.t('tokens.oldSecretHour'))}${await list(request, csrf)}`,
        { notice: t.t('tokens.rotated') },
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
        if (!current || current.revoked_at) throw new errors.notFound(request.t.t('tokens.error.notFound'))
        await revokeApiToken(trx, current.id)
      })
      return reply.redirect('/app/tokens?done=token-revoked', 303)
    },
  )
}
