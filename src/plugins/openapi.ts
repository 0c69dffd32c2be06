import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import { salesAgentInterface } from '../agent/interface.ts'

export const OPENAPI_INFO = {
  title: 'Web Presence Service',
  version: '1.1.0',
  description: 'Public read endpoints, the sales assistant, agent registration and OAuth, MCP and the REST API.',
}

/** The OpenAPI 3.1 description, generated from the route schemas; served at /openapi.json. */
async function openapi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      // The sales-assistant interface is published with its label and the SHA-256 of its schemas.
      ...({ 'x-sales-agent-interface': salesAgentInterface() } as object),
    },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.header('cache-control', 'public, max-age=300').send(app.swagger())
  })
}

export default fp(openapi, { name: 'openapi' })
