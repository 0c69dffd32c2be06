import type { FastifyInstance } from 'fastify'
import auditRoutes from './audits/index.ts'
import pricingRoute from './pricing.ts'
import readyRoute from './ready.ts'

/** Public read endpoints under /api: no authentication, problem+json errors. */
export default async function publicRoutes(app: FastifyInstance) {
  await app.register(readyRoute)
  await app.register(pricingRoute)
  await app.register(auditRoutes)
}
