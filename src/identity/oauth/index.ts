import formbody from '@fastify/formbody'
import type { FastifyInstance } from 'fastify'
import agentClaimRoute from '../agents/claim-attempt.ts'
import agentRegistrationRoute from '../agents/registration.ts'
import { oauthErrorHandler } from './oauth-errors.ts'
import registerRoute from './client-registration.ts'
import revokeRoute from './revoke.ts'
import tokenRoute from './token-endpoint.ts'
import type { EmailHasher } from '../stores/users.ts'

/** The machine endpoints: /oauth/token, /oauth/revoke, /oauth/register, /agent/identity[/claim]. RFC 6749 errors. */
export default async function oauthRoutes(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody, { bodyLimit: 65_536 })
  app.setErrorHandler(oauthErrorHandler)
  // Tokens and secrets pass through every answer here, errors included: nothing may be cached
  // (RFC 6749 5.1). One hook for the whole scope, so no route has to remember it; set as the
  // request arrives, so every answer made after it carries them (Fastify's last-resort error
  // answer too, which runs no onSend hook) and no answer pays an onSend hook chain.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    done()
  })
  await app.register(agentRegistrationRoute)
  await app.register(agentClaimRoute, options)
  await app.register(tokenRoute)
  await app.register(revokeRoute)
  await app.register(registerRoute)
}
