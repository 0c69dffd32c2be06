import type { FastifyInstance } from 'fastify'

/** The public checks under /api: SEO/AEO/GEO audit, site quality (MCS) and Core Web Vitals. */
export default async function auditRoutes(_app: FastifyInstance) {}
