import type { FastifyInstance } from 'fastify'
import cwvRoute from './cwv/route.ts'
import mcsRoute from './mcs/route.ts'
import seoAuditRoute from './seo/route.ts'

/** The public checks under /api: SEO/AEO/GEO audit, site quality (MCS) and Core Web Vitals (src/public/checks.ts runs them). */
export default async function auditRoutes(app: FastifyInstance) {
  await app.register(seoAuditRoute)
  await app.register(mcsRoute)
  await app.register(cwvRoute)
}
