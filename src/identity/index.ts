import type { FastifyInstance } from 'fastify'
import mailer from '../infra/mailer.ts'
import discoveryRoutes from './discovery.ts'
import jwksRoute from './jwks.ts'
import oauthRoutes from './oauth.ts'
import pageRoutes from './pages.ts'
import { loadEmailHasher } from './users.ts'

/** Agent registration, OAuth 2.0, discovery documents and the sign-in pages. */
export default async function identityRoutes(app: FastifyInstance) {
  if (!app.hasDecorator('mailer')) await app.register(mailer)
  const emailHash = await loadEmailHasher(app.db, app.keyring)
  await app.register(jwksRoute)
  await app.register(discoveryRoutes)
  await app.register(oauthRoutes, { emailHash })
  await app.register(pageRoutes, { emailHash })
}
