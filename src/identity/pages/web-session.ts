import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { webCookieNames } from '../../domain/accounts/web-sessions.ts'
import { newId, randomToken, sha256Hex } from '../../infra/crypto.ts'
import { requestTranslator } from '../../domain/i18n/request.ts'
import { WEB_SESSION_TTL } from '../constants.ts'
import { userById, type User } from '../stores/users.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The person signed in on this browser, if any (pages of the identity room only). */
    webUser: User | null
  }
  interface FastifyReply {
    /** Signs the person in on this browser; `accountId` is the account the session works in (else their default). */
    startWebSession(userId: string, accountId?: string): Promise<void>
    endWebSession(): Promise<void>
    /** The CSRF token of this page's forms: one per response, so every form and the cookie agree. */
    formToken(): string
  }
}

/**
 * Browser state of the sign-in pages: an httpOnly, SameSite=Lax session cookie holding a random
 * token (stored hashed), and @fastify/csrf-protection's secret cookie for the form tokens. On https
 * the cookies are Secure and take the __Host- prefix, which pins them to this origin and path /.
 */
async function webSession(app: FastifyInstance) {
  const { secure, ...names } = webCookieNames(app.config.BASE_URL)
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure }

  await app.register(cookie)
  await app.register(csrf, { cookieKey: names.csrf, cookieOpts: cookieOptions })

  app.decorateRequest('webUser', null)
  app.decorateRequest('t', null as never)
  app.addHook('preHandler', async (request: FastifyRequest) => {
    await signedInPerson(request)
    request.t = requestTranslator(request, request.webUser?.language)
  })
  // generateCsrf makes a new secret (and cookie) on every call while the browser has none yet.
  const formTokens = new WeakMap<FastifyReply, string>()
  app.decorateReply('formToken', function formToken(this: FastifyReply) {
    let token = formTokens.get(this)
    if (!token) formTokens.set(this, (token = this.generateCsrf()))
    return token
  })

  async function signedInPerson(request: FastifyRequest) {
    const token = request.cookies[names.session]
    if (!token || token.length > 100) return
    const session = await app.db
      .selectFrom('web_sessions')
      .select('user_id')
      .where('token_hash', '=', sha256Hex(token))
      .where('expires_at', '>', new Date())
      .executeTakeFirst()
    if (session) request.webUser = (await userById(app.db, app.keyring, session.user_id)) ?? null
  }

  app.decorateReply('startWebSession', async function startWebSession(this: FastifyReply, userId: string, accountId?: string) {
    const token = randomToken(32)
    await app.db
      .insertInto('web_sessions')
      .values({
        id: newId('ses'),
        token_hash: sha256Hex(token),
        user_id: userId,
        account_id: accountId ?? null,
        expires_at: new Date(Date.now() + WEB_SESSION_TTL * 1000),
      })
      .execute()
    this.setCookie(names.session, token, { ...cookieOptions, maxAge: WEB_SESSION_TTL })
  })

  app.decorateReply('endWebSession', async function endWebSession(this: FastifyReply) {
    const token = this.request.cookies[names.session]
    if (token && token.length <= 100) await app.db.deleteFrom('web_sessions').where('token_hash', '=', sha256Hex(token)).execute()
    this.clearCookie(names.session, cookieOptions)
  })
}

export default fp(webSession, { name: 'identity-web-session' })

/** Only a path on this origin: no scheme, no host, no protocol-relative or backslash tricks. */
export function safeReturnTo(value: unknown, fallback = '/signin/done'): string {
  if (typeof value !== 'string' || value.length > 4000) return fallback
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\r\n\t]/.test(value)) return fallback
  return value
}
