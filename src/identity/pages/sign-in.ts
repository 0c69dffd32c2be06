import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { Translator } from '../../domain/i18n/translator.ts'
import { safeEqual } from '../../infra/crypto.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { SIGN_IN_CODE_ATTEMPTS, SIGN_IN_CODE_TTL } from '../constants.ts'
import { type IdentityPage, errorLine, hidden, page, sendPage } from './shell.ts'
import {
  claimSignInWarning,
  oldestChallengeSince,
  challengeCodeHash,
  challengeEmail,
  consumeChallenge,
  countChallengeTry,
  countRecentChallenges,
  findChallenge,
  insertChallenge,
} from '../stores/sign-in-challenges.ts'
import { newSignInCode, readSignInCode } from './sign-in-codes.ts'
import { findOrCreateUser, normaliseEmail, type EmailHasher } from '../stores/users.ts'
import { safeReturnTo } from './web-session.ts'

/** Per address: sign-in requests and code entries a minute. Per email: codes sent per quarter hour. */
export const CODES_PER_EMAIL = 5
const EMAIL_WINDOW_MS = 15 * 60_000
/**
 * Codes an address gets in a day: a person rarely needs more than a few, so beyond this someone
 * else is trying; the address is told once that day, and the next code waits until the oldest of
 * the day's is 24 hours old.
 */
export const CODES_PER_EMAIL_PER_DAY = 20
const DAY_MS = 86_400_000

const Html = Type.String({ description: 'HTML page' })
const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function emailForm(t: Translator, csrf: string, returnTo: string, error?: string, email = ''): IdentityPage {
  return page(
    t.t('signin.title'),
    html`${errorLine(error)}
<p>${t.t('signin.intro')}</p>
<form method="post" action="/signin">
${hidden({ _csrf: csrf, return_to: returnTo })}
<label for="email">${t.t('signin.email')}</label>
<input id="email" type="email" name="email" value="${email}" required maxlength="254" autocomplete="email" autofocus>
<button type="submit">${t.t('signin.send')}</button>
</form>`,
  )
}

function codeForm(t: Translator, csrf: string, challenge: string, error?: string): IdentityPage {
  return page(
    t.t('signin.code.title'),
    html`${errorLine(error)}
<p>${t.t('signin.code.intro', { minutes: SIGN_IN_CODE_TTL / 60 })}</p>
<form method="post" action="/signin/code">
${hidden({ _csrf: csrf, challenge })}
<label for="code">${t.t('signin.code.label')}</label>
<input id="code" type="text" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" required autocomplete="one-time-code" autofocus>
<button type="submit">${t.t('signin.code.submit')}</button>
</form>
<p class="muted"><a href="/signin">${t.t('signin.code.resend')}</a></p>`,
  )
}

/** The mail an address gets once a day when its codes are held back: someone is trying to sign in with it. */
function warningMail(t: Translator, email: string) {
  return { to: email, subject: t.t('mail.signinWarning.subject'), text: t.t('mail.signinWarning.text') }
}

/**
 * Passwordless sign-in: an email address, then a six-digit code mailed to it. A challenge takes
 * five wrong codes at most; requests are limited per address, and codes per email address: five
 * in 15 minutes, twenty a day (then the address is told, once a day, that someone is trying).
 */
export default async function signInRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const { emailHash } = options

  typed.get(
    '/signin',
    {
      config: { operation: 'signin.page' },
      schema: {
        summary: 'Sign-in page',
        tags: ['sign-in'],
        querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 4000 })) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => sendPage(reply, 200, emailForm(request.t, reply.formToken(), safeReturnTo(request.query.return_to))),
  )

  typed.post(
    '/signin',
    {
      config: { operation: 'signin.request', ...routeLimit(app.config, 'signin.request') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Send a sign-in code',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          email: Type.String({ maxLength: 254 }),
          return_to: Type.Optional(Type.String({ maxLength: 4000 })),
          _csrf: Type.String({ maxLength: 200 }),
        }),
        response: { 303: Type.Null(), 400: Html, 429: Html },
      },
    },
    async (request, reply) => {
      const t = request.t
      const returnTo = safeReturnTo(request.body.return_to)
      const email = normaliseEmail(request.body.email)
      if (!EMAIL_FORMAT.test(email) || email.length < 3)
        return sendPage(reply, 400, emailForm(t, reply.formToken(), returnTo, t.t('signin.invalidEmail'), email))
      const hash = emailHash(email)
      const dayAgo = new Date(Date.now() - DAY_MS)
      if ((await countRecentChallenges(app.db, hash, dayAgo)) >= CODES_PER_EMAIL_PER_DAY) {
        const oldest = await oldestChallengeSince(app.db, hash, dayAgo)
        const waitMs = Math.max(60_000, (oldest?.getTime() ?? Date.now()) + DAY_MS - Date.now())
        reply.header('retry-after', String(Math.ceil(waitMs / 1000)))
        if (await claimSignInWarning(app.db, hash)) await app.mailer.send(warningMail(t, email))
        const hours = Math.ceil(waitMs / 3600_000)
        return sendPage(reply, 429, emailForm(t, reply.formToken(), returnTo, t.t('signin.tooManyToday', { hours }), email))
      }
      if ((await countRecentChallenges(app.db, hash, new Date(Date.now() - EMAIL_WINDOW_MS))) >= CODES_PER_EMAIL) {
        reply.header('retry-after', String(EMAIL_WINDOW_MS / 1000))
        return sendPage(reply, 429, emailForm(t, reply.formToken(), returnTo, t.t('signin.tooManyRecent'), email))
      }
      const code = newSignInCode()
      const id = await insertChallenge(app.db, app.keyring, {
        emailHash: hash,
        email,
        code,
        returnTo,
        expiresAt: new Date(Date.now() + SIGN_IN_CODE_TTL * 1000),
      })
      await app.mailer.send({
        to: email,
        subject: t.t('mail.signinCode.subject'),
        text: t.t('mail.signinCode.text', { code, minutes: SIGN_IN_CODE_TTL / 60 }),
      })
      return reply.redirect(`/signin/code?challenge=${encodeURIComponent(id)}`, 303)
    },
  )

  typed.get(
    '/signin/code',
    {
      config: { operation: 'signin.code_page' },
      schema: {
        summary: 'Sign-in code page',
        tags: ['sign-in'],
        querystring: Type.Object({ challenge: Type.String({ maxLength: 100 }) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => sendPage(reply, 200, codeForm(request.t, reply.formToken(), request.query.challenge)),
  )

  typed.post(
    '/signin/code',
    {
      config: { operation: 'signin.code', ...routeLimit(app.config, 'signin.code') },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Check a sign-in code',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          challenge: Type.String({ maxLength: 100 }),
          code: Type.String({ maxLength: 20 }),
          _csrf: Type.String({ maxLength: 200 }),
        }),
        response: { 303: Type.Null(), 400: Html, 410: Html },
      },
    },
    async (request, reply) => {
      const { challenge: id } = request.body
      const code = readSignInCode(request.body.code)
      const challenge = await findChallenge(app.db, id)
      const csrf = reply.formToken()
      const t = request.t
      if (!challenge || challenge.consumed_at || challenge.expires_at <= new Date() || challenge.attempts >= SIGN_IN_CODE_ATTEMPTS) {
        return sendPage(
          reply,
          410,
          page(
            t.t('signin.code.gone.title'),
            html`<p>${t.t('signin.code.expired')}</p><p><a href="/signin?return_to=${encodeURIComponent(challenge?.return_to ?? '/signin/done')}">${t.t('signin.code.resend')}</a></p>`,
          ),
        )
      }
      if (code === undefined) return sendPage(reply, 400, codeForm(t, csrf, id, t.t('signin.code.notACode')))
      const tries = await countChallengeTry(app.db, id, SIGN_IN_CODE_ATTEMPTS)
      if (tries === undefined || !safeEqual(challengeCodeHash(id, code), challenge.code_hash)) {
        const left = tries === undefined ? 0 : SIGN_IN_CODE_ATTEMPTS - tries
        return sendPage(reply, 400, codeForm(t, csrf, id, left > 0 ? t.t('signin.code.wrong', { left }) : t.t('signin.code.noTriesLeft')))
      }
      if (!(await consumeChallenge(app.db, id)))
        return sendPage(
          reply,
          410,
          page(
            t.t('signin.code.gone.title'),
            html`<p>${t.t('signin.code.used')}</p><p><a href="/signin">${t.t('signin.code.resend')}</a></p>`,
          ),
        )
      const email = challengeEmail(app.keyring, challenge)
      const user = await findOrCreateUser(app.db, app.keyring, challenge.email_hash, email, { language: t.lang })
      await reply.startWebSession(user.id)
      return reply.redirect(safeReturnTo(challenge.return_to), 303)
    },
  )

  typed.get(
    '/signin/done',
    { config: { operation: 'signin.done' }, schema: { summary: 'Signed-in page', tags: ['sign-in'], response: { 200: Html } } },
    async (request, reply) => {
      const t = request.t
      if (!request.webUser)
        return sendPage(
          reply,
          200,
          page(
            t.t('signin.out.title'),
            html`<p>${t.rich('signin.out.text', {}, { link: (words) => html`<a href="/signin">${words}</a>` })}</p>`,
          ),
        )
      const signOut = html`<form method="post" action="/signout">${hidden({ _csrf: reply.formToken() })}<button type="submit">${t.t('signout.button')}</button></form>`
      return sendPage(
        reply,
        200,
        page(t.t('signin.done.title'), html`<p>${t.t('signin.done.text', { email: request.webUser.email })}</p>${signOut}`),
      )
    },
  )

  typed.post(
    '/signout',
    {
      config: { operation: 'signin.signout' },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Sign out',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({ _csrf: Type.String({ maxLength: 200 }) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      await reply.endWebSession()
      const t = request.t
      const again = t.rich('signout.text', {}, { link: (words) => html`<a href="/signin">${words}</a>` })
      return sendPage(reply, 200, page(t.t('signout.title'), html`<p>${again}</p>`))
    },
  )
}
