import type { FastifyInstance } from 'fastify'
import { requireBearer } from '../../src/frame/bearer.ts'

/** Protected probe routes standing in for /mcp and /v1 while those rooms are built. */
export async function probeRoutes(app: FastifyInstance) {
  const mcp = `${app.config.BASE_URL}/mcp`
  const rest = `${app.config.API_URL}/v1`
  app.get('/probe/mcp/read', { preHandler: requireBearer({ audience: mcp, scopes: ['mcp:read'] }) }, async (request) => request.auth)
  app.get('/probe/mcp/tools', { preHandler: requireBearer({ audience: mcp, scopes: ['mcp:tools'] }) }, async (request) => request.auth)
  app.get('/probe/v1/sites', { preHandler: requireBearer({ audience: rest, scopes: ['read:sites'] }) }, async (request) => request.auth)
}
