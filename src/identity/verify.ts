import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { sha256Hex } from '../infra/crypto.ts'
import { html, type SafeHtml } from '../infra/html.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { CLAIM_ENTRY_ATTEMPTS } from './constants.ts'
import { type IdentityPage, errorLine, hidden, page, sendPage } from './html.ts'
import { claimAttemptByUserCode, countWrongAccountEntry, decideClaimAttempt, type ClaimDecision } from './registrations.ts'
import { normaliseUserCode } from './user-codes.ts'
import { accountChoice, accountField, accountName, chosenAccount } from './account-choice.ts'
import type { EmailHasher } from './users.ts'

/** User-code entries a minute per address: with 20^8 codes, guessing one takes centuries. */

const Html = Type.String({ description: 'HTML page' })
const VERIFY = '/agent/identity/verify'

function entryForm(csrf: string, userCode = '', error?: string): IdentityPage {
  return page(
    'Connect an agent',
    html`${errorLine(error)}
<p>An AI agent asked to be connected to your account. Enter the code it showed you.</p>
<form method="post" action="${VERIFY}">
${hidden({ _csrf: csrf })}
<label for="user_code">Code</label>
<input id="user_code" type="text" name="user_code" value="${userCode}" required maxlength="20" autocomplete="off" autocapitalize="characters" placeholder="XXXX-XXXX" autofocus>
<button type="submit">Continue</button>
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
      const code = request.query.user_code ? normaliseUserCode(request.query.user_code) : undefined
      if (!code || !request.webUser) return sendPage(reply, 200, entryForm(csrf, request.query.user_code ?? ''))
      const attempt = await pendingAttempt(code)
      if (!attempt || attempt.status !== 'pending' || attempt.expires_at <= new Date()) {
        return sendPage(reply, 200, entryForm(csrf, '', 'This code is unknown or no longer valid. Ask the agent for a new one.'))
      }
      return sendPage(
        reply,
        200,
        page(
          'Connect this agent?',
          html`<p>Signed in as <strong>${request.webUser.email}</strong>.</p>
<p>An AI agent asks for access to your account with code <code>${display(code)}</code>. It will be able to:</p>
<ul><li>read your sites, pages and leads (mcp:read)</li><li>use tools that change them (mcp:tools)</li></ul>
<form method="post" action="${VERIFY}/decision">
${hidden({ _csrf: csrf, user_code: display(code) })}
${accountField(await accountChoice(app, request, request.webUser.id))}
<button type="submit" name="decision" value="approve">Connect the agent</button>
<button type="submit" name="decision" value="deny">Decline</button>
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
      const code = normaliseUserCode(request.body.user_code)
      const attempt = code ? await pendingAttempt(code) : undefined
      if (!code || !attempt || attempt.status !== 'pending')
        return sendPage(reply, 400, entryForm(csrf, request.body.user_code, 'This code is not known. Check it and try again.'))
      if (attempt.expires_at <= new Date())
        return sendPage(reply, 410, entryForm(csrf, '', 'This code has expired. Ask the agent to start again.'))
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
      if (!code) return sendPage(reply, 400, entryForm(reply.formToken(), '', 'This code is not known.'))
      if (!user) return reply.redirect(`/signin?return_to=${encodeURIComponent(`${VERIFY}?user_code=${display(code)}`)}`, 303)
      const attempt = await pendingAttempt(code)
      if (!attempt || attempt.status !== 'pending')
        return sendPage(reply, 400, entryForm(reply.formToken(), '', 'This code is not known or was already used.'))
      if (attempt.expires_at <= new Date())
        return sendPage(reply, 410, entryForm(reply.formToken(), '', 'This code has expired. Ask the agent to start again.'))

      if (attempt.email_hash !== options.emailHash(user.email)) {
        const failed = attempt.failed_entries + 1
        await countWrongAccountEntry(app.db, attempt.id, failed, failed >= CLAIM_ENTRY_ATTEMPTS)
        return sendPage(
          reply,
          403,
          page(
            'Another account',
            html`<p>The agent asked for a different email address. Sign in with the address you gave the agent.</p><p><a href="/signin">Sign in with another address</a></p>`,
          ),
        )
      }

      let decision: ClaimDecision = { approve: false }
      let outcome = page('Request declined', html`<p>The agent was not connected. You can close this page.</p>`)
      if (request.body.decision === 'approve') {
        const choice = await accountChoice(app, request, user.id)
        const accountId = chosenAccount(choice, request.body.account_id)
        if (!accountId)
          return sendPage(
            reply,
            403,
            page(
              'Another account',
              html`<p>You are not a member of the account chosen.</p><p><a href="${VERIFY}?user_code=${display(code)}">Choose again</a></p>`,
            ),
          )
        decision = { approve: true, userId: user.id, accountId }
        outcome = page(
          'Agent connected',
          html`<p>The agent is now connected to ${accountName(choice, accountId)}. You can close this page and return to it.</p>`,
        )
      }
      if (!(await decideClaimAttempt(app.db, attempt.id, decision)))
        return sendPage(reply, 400, entryForm(reply.formToken(), '', 'This code was already used.'))
      return sendPage(reply, 200, outcome)
    },
  )
}
