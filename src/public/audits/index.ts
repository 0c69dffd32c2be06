import type { FastifyInstance } from 'fastify'
import { createSafeFetcher } from '../../infra/fetcher.ts'
import cwvRoute from './cwv/route.ts'
import mcsRoute from './mcs/route.ts'
import seoAuditRoute from './seo/route.ts'

/** The public checks under /api: SEO/AEO/GEO audit, site quality (MCS) and Core Web Vitals. */
export default async function auditRoutes(app: FastifyInstance) {
  // One fetcher for every check: its connection pool is shared, its rules are the same.
  const fetcher = createSafeFetcher({ allowPrivateNetworks: app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connections: 16 })
  app.addHook('onClose', async () => fetcher.close())
  await app.register(seoAuditRoute, { fetcher })
  await app.register(mcsRoute, { fetcher })
  await app.register(cwvRoute)
}
