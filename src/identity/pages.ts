import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { classify, logFailure } from '../errors.ts'
import authorizeRoutes from './authorize.ts'
import { html, sendPage } from '../infra/html.ts'
import { page } from './html.ts'
import invitationRoutes from './invitations.ts'
import signInRoutes from './sign-in.ts'
import type { EmailHasher } from './users.ts'
import verifyRoutes from './verify.ts'
import webSession from './web-session.ts'

const TITLES: Record<number, string> = {
  400: 'Something is wrong with this request',
  403: 'This form has expired',
  429: 'Too many attempts',
}

/** Errors on the HTML pages are pages too: a person reads them, not a client library. */
function htmlErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  const csrf = error.code?.startsWith('FST_CSRF')
  const status = csrf ? 403 : classified.status
  const message = csrf
    ? 'The form was open too long or cookies are blocked. Go back, reload the page and try again.'
    : status === 429
      ? 'Wait a minute before trying again.'
      : status >= 500
        ? 'Something went wrong on our side. Try again shortly.'
        : classified.detail
  return sendPage(reply, status, page(TITLES[status] ?? 'Cannot continue', html`<p>${message}</p>`))
}

/** The pages people use: sign-in, joining an account they were invited to, the claim verification page and the consent page. */
export default async function pageRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody, { bodyLimit: 16_384 })
  await app.register(webSession)
  app.setErrorHandler(htmlErrorHandler)
  await app.register(signInRoutes, options)
  await app.register(invitationRoutes, options)
  await app.register(verifyRoutes, options)
  await app.register(authorizeRoutes)
}
