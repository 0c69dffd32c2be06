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

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }
const ROLE_NAMES = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' } as const

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
    const csrf = reply.formToken()
    const accounts = await membershipsOf(app.db, app.keyring, userId)
    return reply.page(
      'Your accounts',
      'accounts',
      html`<p>You belong to ${accounts.length} ${accounts.length === 1 ? 'account' : 'accounts'}. Everything in the dashboard shows and changes the account you work in.</p>
<p><a href="/app/your-data">Your data</a>: export everything the account you work in holds, or delete it. <a href="/app/accounts/delete-sign-in">Delete your sign-in</a>: you stop being a member of every account.</p>
${dataTable(
  'Your accounts',
  ['Account', 'Plan', 'Your role', ''],
  accounts.map((a) => [
    html`${a.ownerEmail ? html`Account of ${a.ownerEmail}` : a.accountId} <code class="muted">${a.accountId}</code>`,
    a.plan,
    ROLE_NAMES[a.role],
    a.accountId === accountId
      ? // Leaving asks once, on a page of its own (as removing a member does).
        html`<strong>You work in this account</strong> <a href="/app/accounts/leave">Leave this account</a>`
      : actionForm('/app/accounts/switch', csrf, `Work in the account of ${a.ownerEmail ?? a.accountId}`, {
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
        throw new errors.notFound('You do not belong to such an account')
      return reply.redirect('/app?done=switched', 303)
    },
  )

  routes.get(
    '/accounts/leave',
    { config: { operation: 'dashboard.accounts.confirmLeave', ...anyMember }, schema: { hide: true } },
    async (request, reply) => {
      const { userId, accountId } = request.person
      const current = (await membershipsOf(app.db, app.keyring, userId)).find((a) => a.accountId === accountId)
      const which = current?.ownerEmail ? `the account of ${current.ownerEmail}` : 'this account'
      return reply.page(
        'Leave this account?',
        'accounts',
        html`<p>You lose access to ${which} at once, and your API tokens of this account are revoked. An owner can invite you again.</p>
<form method="post" action="/app/accounts/leave" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">Leave the account</button> <a href="/app/accounts">Stay</a></form>`,
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
    async (_request, reply) =>
      reply.page(
        'Delete your sign-in?',
        'accounts',
        html`<p>Your sign-in, your membership of every account and your own API tokens are deleted at once. The accounts themselves stay with their other members. An account you are the last owner of must first get another owner, or be deleted.</p>
<form method="post" action="/app/accounts/delete-sign-in" class="actions"><input type="hidden" name="_csrf" value="${reply.formToken()}"><button type="submit" class="danger">Delete my sign-in</button> <a href="/app/accounts">Keep it</a></form>`,
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
