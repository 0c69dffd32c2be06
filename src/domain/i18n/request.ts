import type { FastifyRequest } from 'fastify'
import { chooseLanguage, LANGUAGE_COOKIE, translator, type Translator } from './translator.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The language of the pages for people (sign-in, dashboard), chosen once per request. */
    t: Translator
  }
}

/** The translator for a request: the person's setting, this browser's choice, Accept-Language, English. */
export function requestTranslator(request: FastifyRequest, setting: string | null | undefined): Translator {
  const cookies = (request as { cookies?: Record<string, string | undefined> }).cookies
  return translator(chooseLanguage({ setting, cookie: cookies?.[LANGUAGE_COOKIE], acceptLanguage: request.headers['accept-language'] }))
}
