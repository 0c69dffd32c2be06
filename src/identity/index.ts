import type { FastifyInstance } from 'fastify'
import jwksRoute from './jwks.ts'

/** Agent registration, OAuth 2.0, discovery documents and the sign-in pages. */
export default async function identityRoutes(app: FastifyInstance) {
  await app.register(jwksRoute)
}
