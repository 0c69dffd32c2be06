import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { acceptInvitation, invitationBySecret, InvitationUnusable, type FoundInvitation } from '../../domain/accounts/invitations.ts'
import { withTransaction } from '../../domain/transaction.ts'
import { chooseSessionAccount, webCookieNames } from '../../domain/accounts/web-sessions.ts'
import { classify } from '../../errors.ts'
import { safeEqual } from '../../infra/crypto.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { SIGN_IN_CODE_ATTEMPTS, SIGN_IN_CODE_TTL } from '../constants.ts'
import { type IdentityPage, errorLine, hidden, page, sendPage } from './shell.ts'
import { CODES_PER_EMAIL } from './sign-in.ts'
import {
  challengeCodeHash,
  consumeChallenge,
  countChallengeTry,
  countRecentChallenges,
  findChallenge,
  insertChallenge,
} from '../stores/sign-in-challenges.ts'
import { newSignInCode, readSignInCode } from './sign-in-codes.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { findOrCreateUser, type EmailHasher } from '../stores/users.ts'

const Html = Type.String({ description: 'HTML page' })
const Token = Type.String({ maxLength: 200 })
const EMAIL_WINDOW_MS = 15 * 60_000

/** What a link that cannot be used says, and with which status. */
function unusable(t: Translator, state: InvitationUnusable['state'], found?: FoundInvitation): { status: number; page: IdentityPage } {
  const ask = t.t('join.askAgain')
  switch (state) {
    case 'accepted':
      return {
        status: 410,
        page: page(
          t.t('join.used.title'),
          html`<p>${t.t('join.used.text')}</p><p>${t.rich('join.used.signIn', {}, { link: (words) => html`<a href="/signin?return_to=%2Fapp">${words}</a>` })}</p>`,
        ),
      }
    case 'withdrawn':
      return { status: 410, page: page(t.t('join.withdrawn.title'), html`<p>${t.t('join.withdrawn.text')} ${ask}</p>`) }
    case 'expired':
      return {
        status: 410,
        page: page(
          t.t('join.expired.title'),
          html`<p>${found ? t.t('join.expired.text', { day: t.dateTime(found.row.expires_at) }) : t.t('join.expired.textNoDay')} ${ask}</p>`,
        ),
      }
    case 'other_person':
      return { status: 403, page: page(t.t('join.otherPerson.title'), html`<p>${t.t('join.otherPerson.text')}</p>`) }
    case 'unknown':
      return { status: 404, page: page(t.t('join.unknown.title'), html`<p>${t.t('join.unknown.text')} ${ask}</p>`) }
  }
}

function invitationIntro(t: Translator, found: FoundInvitation): SafeHtml {
  return html`<p>${t.t('join.intro', { who: found.inviter ?? t.t('join.someone'), role: t.t(`join.role.${found.row.role}`) })}</p>`
}

function codeForm(t: Translator, csrf: string, token: string, challenge: string, email: string, error?: string): IdentityPage {
  return page(
    t.t('signin.code.title'),
    html`${errorLine(error)}
<p>${t.t('join.code.intro', { email, minutes: SIGN_IN_CODE_TTL / 60 })}</p>
<form method="post" action="/join/code">
${hidden({ _csrf: csrf, token, challenge })}
<label for="code">${t.t('signin.code.label')}</label>
<input id="code" type="text" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required autocomplete="one-time-code" autofocus>
<button type="submit">${t.t('join.submit')}</button>
</form>`,
  )
}

/**
 * The page an invitation's link opens (DESIGN.md 12, Teams): it says who invites to which role,
 * and the invitee accepts by proving the address with the passwordless code: a new person is
 * created without an account of their own, an existing one keeps theirs and gains this one. A
 * person signed in with the invited address accepts with one button. A used, withdrawn or expired
 * link says so. The link's secret travels in the query (never logged) and in form fields.
 */
export default async function invitationRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { emailHash } = options
  const sessionCookie = webCookieNames(app.config.BASE_URL).session

  /** The pending invitation of a link, or the page that explains why it cannot be used. */
  async function pending(reply: FastifyReply, token: string): Promise<FoundInvitation | undefined> {
    const found = await invitationBySecret(app.db, app.keyring, token)
    if (found?.state === 'pending') return found
    const refused = unusable(reply.request.t, found ? (found.state as InvitationUnusable['state']) : 'unknown', found)
    await sendPage(reply, refused.status, refused.page)
    return undefined
  }

  /** The invitation used by this person, the session moved to its account; or the page of why not. */
  async function join(reply: FastifyReply, found: FoundInvitation, accept: () => Promise<{ accountId: string; userId: string }>) {
    try {
      return await accept()
    } catch (error) {
      const t = reply.request.t
      if (error instanceof InvitationUnusable) {
        const refused = unusable(t, error.state, found)
        await sendPage(reply, refused.status, refused.page)
        return undefined
      }
      const refusal = classify(error as FastifyError)
      if (refusal.code === 'plan_limit') {
        await sendPage(reply, 403, page(t.t('join.noSeat.title'), html`<p>${t.t('join.noSeat.text')}</p>`))
        return undefined
      }
      throw error
    }
  }

  typed.get(
    '/join',
    {
      config: { operation: 'invitation.page' },
      schema: {
        summary: 'An invitation to an account',
        tags: ['sign-in'],
        querystring: Type.Object({ token: Token }),
        response: { 200: Html, 403: Html, 404: Html, 410: Html },
      },
    },
    async (request, reply) => {
      const { token } = request.query
      const found = await pending(reply, token)
      if (!found) return reply
      const csrf = reply.formToken()
      const t = request.t
      const person = request.webUser
      if (person && person.email === found.email) {
        return sendPage(
          reply,
          200,
          page(
            t.t('join.title'),
            html`${invitationIntro(t, found)}
<form method="post" action="/join/accept">${hidden({ _csrf: csrf, token })}<button type="submit">${t.t('join.submit')}</button></form>`,
          ),
        )
      }
      return sendPage(
        reply,
        200,
        page(
          t.t('join.title'),
          html`${invitationIntro(t, found)}
${person ? html`<p>${t.t('join.otherSignedIn', { signedIn: person.email, invited: found.email })}</p>` : ''}
<p>${t.t('join.confirm', { email: found.email })}</p>
<form method="post" action="/join">${hidden({ _csrf: csrf, token })}<button type="submit">${t.t('join.sendCode')}</button></form>`,
        ),
      )
    },
  )

  typed.post(
    '/join',
    {
      config: { operation: 'invitation.code_request', ...routeLimit(app.config, 'signin.request') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Mail a sign-in code to the invited address',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({ token: Token, _csrf: Type.String({ maxLength: 200 }) }),
        response: { 200: Html, 403: Html, 404: Html, 410: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const { token } = request.body
      const t = request.t
      const found = await pending(reply, token)
      if (!found) return reply
      if ((await countRecentChallenges(app.db, found.row.email_hash, new Date(Date.now() - EMAIL_WINDOW_MS))) >= CODES_PER_EMAIL) {
        reply.header('retry-after', String(EMAIL_WINDOW_MS / 1000))
        return sendPage(reply, 429, page(t.t('join.tooMany.title'), html`<p>${t.t('signin.tooManyRecent')}</p>`))
      }
      const code = newSignInCode()
      const challenge = await insertChallenge(app.db, app.keyring, {
        emailHash: found.row.email_hash,
        email: found.email,
        code,
        returnTo: '/app',
        expiresAt: new Date(Date.now() + SIGN_IN_CODE_TTL * 1000),
      })
      await app.mailer.send({
        to: found.email,
        subject: t.t('mail.signinCode.subject'),
        text: t.t('mail.joinCode.text', { code, minutes: SIGN_IN_CODE_TTL / 60 }),
      })
      return sendPage(reply, 200, codeForm(t, reply.formToken(), token, challenge, found.email))
    },
  )

  typed.post(
    '/join/code',
    {
      config: { operation: 'invitation.code', ...routeLimit(app.config, 'signin.code') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Check the code and join the account',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          token: Token,
          challenge: Type.String({ maxLength: 100 }),
          code: Type.String({ maxLength: 20 }),
          _csrf: Type.String({ maxLength: 200 }),
        }),
        response: { 303: Type.Null(), 400: Html, 403: Html, 404: Html, 410: Html },
      },
    },
    async (request, reply) => {
      const { token, challenge: id } = request.body
      const t = request.t
      const found = await pending(reply, token)
      if (!found) return reply
      const challenge = await findChallenge(app.db, id)
      if (
        !challenge ||
        challenge.email_hash !== found.row.email_hash ||
        challenge.consumed_at ||
        challenge.expires_at <= new Date() ||
        challenge.attempts >= SIGN_IN_CODE_ATTEMPTS
      ) {
        return sendPage(
          reply,
          410,
          page(
            t.t('signin.code.gone.title'),
            html`<p>${t.t('signin.code.expired')}</p><p><a href="/join?token=${encodeURIComponent(token)}">${t.t('signin.code.resend')}</a></p>`,
          ),
        )
      }
      const code = readSignInCode(request.body.code)
      if (code === undefined)
        return sendPage(reply, 400, codeForm(t, reply.formToken(), token, id, found.email, t.t('signin.code.notACode')))
      const tries = await countChallengeTry(app.db, id, SIGN_IN_CODE_ATTEMPTS)
      if (tries === undefined || !safeEqual(challengeCodeHash(id, code), challenge.code_hash)) {
        const left = tries === undefined ? 0 : SIGN_IN_CODE_ATTEMPTS - tries
        return sendPage(
          reply,
          400,
          codeForm(
            t,
            reply.formToken(),
            token,
            id,
            found.email,
            left > 0 ? t.t('signin.code.wrong', { left }) : t.t('signin.code.noTriesLeft'),
          ),
        )
      }
      if (!(await consumeChallenge(app.db, id)))
        return sendPage(reply, 410, page(t.t('signin.code.gone.title'), html`<p>${t.t('signin.code.used')}</p>`))
      // The person and their membership are made together: a refused invitation leaves no person behind.
      const joined = await join(reply, found, () =>
        withTransaction(app.db, async (trx) => {
          const user = await findOrCreateUser(trx, app.keyring, found.row.email_hash, found.email, { joining: found.row.account_id })
          const { accountId } = await acceptInvitation(trx, token, { userId: user.id, emailHash: found.row.email_hash })
          return { accountId, userId: user.id }
        }),
      )
      if (!joined) return reply
      await reply.startWebSession(joined.userId, joined.accountId)
      return reply.redirect('/app?done=joined', 303)
    },
  )

  typed.post(
    '/join/accept',
    {
      config: { operation: 'invitation.accept' },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Join the account as the signed-in person',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({ token: Token, _csrf: Type.String({ maxLength: 200 }) }),
        response: { 303: Type.Null(), 403: Html, 404: Html, 410: Html },
      },
    },
    async (request, reply) => {
      const { token } = request.body
      const found = await pending(reply, token)
      if (!found) return reply
      const person = request.webUser
      if (!person) return reply.redirect(`/join?token=${encodeURIComponent(token)}`, 303)
      const joined = await join(reply, found, async () => {
        const { accountId } = await acceptInvitation(app.db, token, { userId: person.id, emailHash: emailHash(person.email) })
        return { accountId, userId: person.id }
      })
      if (!joined) return reply
      await chooseSessionAccount(app.db, request.cookies[sessionCookie] ?? '', person.id, joined.accountId)
      return reply.redirect('/app?done=joined', 303)
    },
  )
}
