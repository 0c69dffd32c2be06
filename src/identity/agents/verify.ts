import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { sha256Hex } from '../../infra/crypto.ts'
import type { MessageKey, Translator } from '../../domain/i18n/translator.ts'
import { html } from '../../infra/html.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { CLAIM_ENTRY_ATTEMPTS } from '../constants.ts'
import { type IdentityPage, errorLine, hidden, page, sendPage } from '../pages/shell.ts'
import { claimAttemptByUserCode, countWrongAccountEntry, decideClaimAttempt, type ClaimDecision } from '../stores/registrations.ts'
import { normaliseUserCode } from './user-codes.ts'
import { accountChoice, accountField, accountName, chosenAccount } from '../pages/account-choice.ts'
import type { EmailHasher } from '../stores/users.ts'

/** User-code entries a minute per address: with 20^8 codes, guessing one takes centuries. */

const Html = Type.String({ description: 'HTML page' })
const VERIFY = '/agent/identity/verify'

function entryForm(t: Translator, csrf: string, userCode = '', error?: MessageKey): IdentityPage {
  return page(
    t.t('claim.title'),
    html`${errorLine(error ? t.t(error) : undefined)}
<p>${t.t('claim.intro')}</p>
<form method="post" action="${VERIFY}">
${hidden({ _csrf: csrf })}
<label for="user_code">${t.t('signin.code.label')}</label>
<input id="user_code" type="text" name="user_code" value="${userCode}" required maxlength="20" autocomplete="off" autocapitalize="characters" placeholder="XXXX-XXXX" autofocus>
<button type="submit">${t.t('claim.continue')}</button>
</form>`,
  )
}

const display = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/**
 * The verification page of the claim ceremony (RFC 8628 section 3.3): a person enters the user
 * code, signs in with the email address the agent named, and approves or declines. Codes are
 * looked up by hash; a wrong account confirming a code counts against it (5 times ends it).
 */
export default async function verifyRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const pendingAttempt = (code: string) => claimAttemptByUserCode(app.db, sha256Hex(code))

  typed.get(
    VERIFY,
    {
      config: { operation: 'agent.identity.verify_page' },
      schema: {
        summary: 'Claim verification page',
        tags: ['sign-in'],
        querystring: Type.Object({ user_code: Type.Optional(Type.String({ maxLength: 20 })) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const csrf = reply.formToken()
      const t = request.t
      const code = request.query.user_code ? normaliseUserCode(request.query.user_code) : undefined
      if (!code || !request.webUser) return sendPage(reply, 200, entryForm(t, csrf, request.query.user_code ?? ''))
      const attempt = await pendingAttempt(code)
      if (!attempt || attempt.status !== 'pending' || attempt.expires_at <= new Date()) {
        return sendPage(reply, 200, entryForm(t, csrf, '', 'claim.error.stale'))
      }
      return sendPage(
        reply,
        200,
        page(
          t.t('claim.confirm.title'),
          html`<p>${t.rich('consent.signedInAs', { email: request.webUser.email }, { strong: (words) => html`<strong>${words}</strong>` })}</p>
<p>${t.rich('claim.confirm.asks', { code: display(code) }, { mono: (words) => html`<code>${words}</code>` })}</p>
<ul><li>${t.t('claim.confirm.read')} (mcp:read)</li><li>${t.t('claim.confirm.tools')} (mcp:tools)</li></ul>
<form method="post" action="${VERIFY}/decision">
${hidden({ _csrf: csrf, user_code: display(code) })}
${accountField(t, await accountChoice(app, request, request.webUser.id))}
<button type="submit" name="decision" value="approve">${t.t('claim.approve')}</button>
<button type="submit" name="decision" value="deny">${t.t('claim.decline')}</button>
</form>`,
        ),
      )
    },
  )

  typed.post(
    VERIFY,
    {
      config: { operation: 'agent.identity.verify.enter', ...routeLimit(app.config, 'agent.identity.verify') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Enter a user code',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({ user_code: Type.String({ maxLength: 20 }), _csrf: Type.String({ maxLength: 200 }) }),
        response: { 303: Type.Null(), 400: Html, 410: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const csrf = reply.formToken()
      const t = request.t
      const code = normaliseUserCode(request.body.user_code)
      const attempt = code ? await pendingAttempt(code) : undefined
      if (!code || !attempt || attempt.status !== 'pending')
        return sendPage(reply, 400, entryForm(t, csrf, request.body.user_code, 'claim.error.unknown'))
      if (attempt.expires_at <= new Date()) return sendPage(reply, 410, entryForm(t, csrf, '', 'claim.error.expired'))
      const next = `${VERIFY}?user_code=${display(code)}`
      const location = request.webUser ? next : `/signin?return_to=${encodeURIComponent(next)}`
      return reply.redirect(location, 303)
    },
  )

  typed.post(
    `${VERIFY}/decision`,
    {
      config: { operation: 'agent.identity.verify.decide', ...routeLimit(app.config, 'agent.identity.verify') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Approve or decline a claim',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          user_code: Type.String({ maxLength: 20 }),
          decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
          account_id: Type.Optional(Type.String({ maxLength: 100 })),
          _csrf: Type.String({ maxLength: 200 }),
        }),
        response: { 200: Html, 303: Type.Null(), 400: Html, 403: Html, 410: Html },
      },
    },
    async (request, reply) => {
      const code = normaliseUserCode(request.body.user_code)
      const user = request.webUser
      const t = request.t
      if (!code) return sendPage(reply, 400, entryForm(t, reply.formToken(), '', 'claim.error.notKnown'))
      if (!user) return reply.redirect(`/signin?return_to=${encodeURIComponent(`${VERIFY}?user_code=${display(code)}`)}`, 303)
      const attempt = await pendingAttempt(code)
      if (!attempt || attempt.status !== 'pending')
        return sendPage(reply, 400, entryForm(t, reply.formToken(), '', 'claim.error.unknownOrUsed'))
      if (attempt.expires_at <= new Date()) return sendPage(reply, 410, entryForm(t, reply.formToken(), '', 'claim.error.expired'))

      if (attempt.email_hash !== options.emailHash(user.email)) {
        const failed = attempt.failed_entries + 1
        await countWrongAccountEntry(app.db, attempt.id, failed, failed >= CLAIM_ENTRY_ATTEMPTS)
        return sendPage(
          reply,
          403,
          page(t.t('claim.other.title'), html`<p>${t.t('claim.other.text')}</p><p><a href="/signin">${t.t('claim.other.signIn')}</a></p>`),
        )
      }

      let decision: ClaimDecision = { approve: false }
      let outcome = page(t.t('claim.declined.title'), html`<p>${t.t('claim.declined.text')}</p>`)
      if (request.body.decision === 'approve') {
        const choice = await accountChoice(app, request, user.id)
        const accountId = chosenAccount(choice, request.body.account_id)
        if (!accountId)
          return sendPage(
            reply,
            403,
            page(
              t.t('claim.other.title'),
              html`<p>${t.t('consent.error.notMember')}</p><p><a href="${VERIFY}?user_code=${display(code)}">${t.t('claim.chooseAgain')}</a></p>`,
            ),
          )
        decision = { approve: true, userId: user.id, accountId }
        outcome = page(
          t.t('claim.connected.title'),
          html`<p>${t.t('claim.connected.text', { account: accountName(t, choice, accountId) })}</p>`,
        )
      }
      if (!(await decideClaimAttempt(app.db, attempt.id, decision)))
        return sendPage(reply, 400, entryForm(t, reply.formToken(), '', 'claim.error.used'))
      return sendPage(reply, 200, outcome)
    },
  )
}
