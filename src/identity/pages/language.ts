import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { webCookieNames } from '../../domain/accounts/web-sessions.ts'
import { LANGUAGE_COOKIE } from '../../domain/i18n/translator.ts'
import { LOCALES } from '../../domain/locales.ts'
import { safeReturnTo } from './web-session.ts'

const YEAR = 365 * 86_400

/**
 * POST /language, the language switch of every page for people (DESIGN.md 17): kept in this
 * browser, and as the person's setting when they are signed in (their mail follows it too).
 */
export default async function languageRoutes(app: FastifyInstance) {
  const { secure } = webCookieNames(app.config.BASE_URL)
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/language',
    {
      config: { operation: 'signin.language' },
      preHandler: app.csrfProtection,
      schema: {
        summary: 'Choose the language of the pages and mail',
        tags: ['sign-in'],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object({
          lang: Type.Union(LOCALES.map((lang) => Type.Literal(lang))),
          return_to: Type.Optional(Type.String({ maxLength: 4000 })),
          _csrf: Type.String({ maxLength: 200 }),
        }),
        response: { 303: Type.Null() },
      },
    },
    async (request, reply) => {
      const { lang } = request.body
      if (request.webUser) await app.db.updateTable('users').set({ language: lang }).where('id', '=', request.webUser.id).execute()
      reply.setCookie(LANGUAGE_COOKIE, lang, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: YEAR })
      return reply.redirect(safeReturnTo(request.body.return_to), 303)
    },
  )
}
