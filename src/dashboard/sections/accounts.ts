import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { membershipsOf, removeMember } from '../../domain/accounts/members.ts'
import { chooseSessionAccount, webCookieNames } from '../../domain/accounts/web-sessions.ts'
import { errors } from '../../errors.ts'
import { deleteOwnSignIn } from '../../domain/your-data/deletion.ts'
import { html } from '../../infra/html.ts'
import { auditedChange } from '../audited-change.ts'
import { actionForm, dataTable } from '../layout.ts'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }

/**
 * The accounts a person belongs to, and the one this browser works in: every page and action of
 * the dashboard is scoped to the chosen account, and another account's data stays not found. A
 * member may leave the account they work in (its last owner may not).
 */
export default async function accountsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const sessionCookie = webCookieNames(app.config.BASE_URL).session
  const anyMember = { role: 'viewer' as const }

  routes.get('/accounts', { config: { operation: 'dashboard.accounts.list' }, schema: { hide: true } }, async (request, reply) => {
    const { userId, accountId } = request.person
    const t = request.t
    const csrf = reply.formToken()
    const accounts = await membershipsOf(app.db, app.keyring, userId)
    return reply.page(
      t.t('accounts.title'),
      'accounts',
      html`<p>${t.t('accounts.intro', { count: accounts.length })}</p>
<p>${t.rich(
        'accounts.links',
        {},
        {
          data: (words) => html`<a href="/app/your-data">${words}</a>`,
          signIn: (words) => html`<a href="/app/accounts/delete-sign-in">${words}</a>`,
        },
      )}</p>
${dataTable(
  t.t('accounts.title'),
  [t.t('accounts.col.account'), t.t('accounts.col.plan'), t.t('accounts.col.role'), ''],
  accounts.map((a) => [
    html`${a.ownerEmail ? t.t('accounts.of', { email: a.ownerEmail }) : a.accountId} <code class="muted">${a.accountId}</code>`,
    planEntitlements(a.plan).name,
    t.t(`team.role.${a.role}`),
    a.accountId === accountId
      ? // Leaving asks once, on a page of its own (as removing a member does).
        html`<strong>${t.t('accounts.current')}</strong> <a href="/app/accounts/leave">${t.t('accounts.leave.link')}</a>`
      : actionForm('/app/accounts/switch', csrf, t.t('accounts.switch', { name: a.ownerEmail ?? a.accountId }), {
          fields: { account_id: a.accountId },
        }),
  ]),
)}`,
    )
  })

  routes.post(
    '/accounts/switch',
    {
      config: { operation: 'dashboard.accounts.switch', ...anyMember },
      schema: {
        hide: true,
        body: Type.Object({ ...Form, account_id: Type.String({ pattern: '^acct_[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const token = request.cookies[sessionCookie] ?? ''
      if (!(await chooseSessionAccount(app.db, token, request.person.userId, request.body.account_id)))
        throw new errors.notFound(request.t.t('accounts.error.notMember'))
      return reply.redirect('/app?done=switched', 303)
    },
  )

  routes.get(
    '/accounts/leave',
    { config: { operation: 'dashboard.accounts.confirmLeave', ...anyMember }, schema: { hide: true } },
    async (request, reply) => {
      const { userId, accountId } = request.person
      const t = request.t
      const current = (await membershipsOf(app.db, app.keyring, userId)).find((a) => a.accountId === accountId)
      return reply.page(
        t.t('team.leave.title'),
        'accounts',
        html`<p>${t.t('accounts.leave.text', { owner: current?.ownerEmail ?? 'none' })}</p>
<form method="post" action="/app/accounts/leave" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">${t.t('team.leave')}</button> <a href="/app/accounts">${t.t('team.leave.stay')}</a></form>`,
      )
    },
  )

  routes.post(
    '/accounts/leave',
    {
      config: { operation: 'dashboard.accounts.leave', ...anyMember },
      schema: { hide: true, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => removeMember(trx, request.person.accountId, request.person.userId))
      return reply.redirect('/app?done=left', 303)
    },
  )

  routes.get(
    '/accounts/delete-sign-in',
    { config: { operation: 'dashboard.accounts.confirmDeleteSignIn', ...anyMember }, schema: { hide: true } },
    async (request, reply) =>
      reply.page(
        request.t.t('accounts.deleteSignIn.title'),
        'accounts',
        html`<p>${request.t.t('accounts.deleteSignIn.text')}</p>
<form method="post" action="/app/accounts/delete-sign-in" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">${request.t.t('accounts.deleteSignIn.submit')}</button> <a href="/app/accounts">${request.t.t('accounts.deleteSignIn.keep')}</a></form>`,
      ),
  )

  routes.post(
    '/accounts/delete-sign-in',
    {
      config: { operation: 'dashboard.accounts.deleteSignIn', ...anyMember },
      schema: { hide: true, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => deleteOwnSignIn(trx, request.person.userId))
      return reply.clearCookie(sessionCookie, { path: '/' }).redirect('/signin', 303)
    },
  )
}
