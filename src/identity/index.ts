import type { FastifyInstance } from 'fastify'
import { createSafeFetcher } from '../infra/fetcher.ts'
import { clientMetadataResolver } from './oauth/client-metadata.ts'
import discoveryRoutes from './discovery/documents.ts'
import jwksRoute from './discovery/jwks.ts'
import oauthRoutes from './oauth/index.ts'
import pageRoutes from './pages/index.ts'
import { answerUnrouted, recordOAuthRoutes } from './oauth/unrouted.ts'
import { loadEmailHasher } from './stores/users.ts'

/** Agent registration, OAuth 2.0, discovery documents and the sign-in pages. */
export default async function identityRoutes(app: FastifyInstance) {
  const emailHash = await loadEmailHasher(app.db, app.keyring)
  // Client ID Metadata Documents are fetched from URLs a client names: only through the SSRF-safe
  // fetcher, which allows private networks only where every outbound fetch may (tests, development).
  const fetcher = createSafeFetcher({
    allowPrivateNetworks: app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: 5000,
    maxBytes: 10_240,
    maxRedirects: 0,
  })
  app.addHook('onClose', async () => fetcher.close())
  app.decorate('resolveClientMetadata', clientMetadataResolver(app, fetcher))
  const oauthRoutesSeen = recordOAuthRoutes(app)
  await app.register(jwksRoute)
  await app.register(discoveryRoutes)
  await app.register(oauthRoutes, { emailHash })
  await app.register(pageRoutes, { emailHash })
  await answerUnrouted(app, oauthRoutesSeen)
}
