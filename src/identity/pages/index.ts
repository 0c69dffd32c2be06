import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { classify, logFailure } from '../../errors.ts'
import authorizeRoutes from '../oauth/authorize.ts'
import { pageFailure } from '../../domain/i18n/page-failure.ts'
import { requestTranslator } from '../../domain/i18n/request.ts'
import { html } from '../../infra/html.ts'
import { page, sendPage } from './shell.ts'
import invitationRoutes from './invitations.ts'
import languageRoutes from './language.ts'
import signInRoutes from './sign-in.ts'
import type { EmailHasher } from '../stores/users.ts'
import unsubscribeRoutes from './unsubscribe.ts'
import verifyRoutes from '../agents/verify.ts'
import webSession from './web-session.ts'

/** Errors on the HTML pages are pages too: a person reads them, not a client library. */
function htmlErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  const t = (request.t ??= requestTranslator(request, null))
  const failure = pageFailure(t, error, classified, classified.status === 429 ? t.t('error.wait') : undefined)
  return sendPage(reply, failure.status, page(failure.title, html`<p>${failure.message}</p>`))
}

/** The pages people use: sign-in, joining an account they were invited to, the claim verification page and the consent page. */
export default async function pageRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody, { bodyLimit: 16_384 })
  await app.register(webSession)
  app.setErrorHandler(htmlErrorHandler)
  await app.register(signInRoutes, options)
  await app.register(languageRoutes)
  await app.register(invitationRoutes, options)
  await app.register(verifyRoutes, options)
  await app.register(authorizeRoutes)
  await app.register(unsubscribeRoutes)
}
