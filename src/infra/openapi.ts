import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import './operation.ts'
import { salesAgentInterface } from '../agent/interface.ts'

/** The scopes of /v1 as the OAuth security scheme lists them. */
const REST_SCOPE_TEXT = {
  'read:sites': 'Read sites, pages, blocks, domains and builds',
  'write:pages': 'Create, change and delete sites, pages, blocks and domains; rebuild',
  'manage:leads': 'Read and delete leads; take over conversations',
  'manage:webhooks': 'Manage webhook endpoints and deliveries',
  'manage:tokens': 'Manage API tokens and read the audit log',
}

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
      // Operations need no credentials unless they say so (the /v1 routes and /mcp name theirs).
      security: [{}],
      // The credentials of /v1 (DESIGN.md 7); URLs are relative to the service's own origin.
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'Account OAuth 2.0 access token for the resource {api_url}/v1 (authorization code with PKCE S256).',
            flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: REST_SCOPE_TEXT } },
          },
          apiToken: { type: 'http', scheme: 'bearer', bearerFormat: 'wps_<token id>_<secret>', description: 'API token created in the dashboard, by the admin CLI or at POST /v1/tokens.' },
        },
      },
    },
    // A route's operation (its name in the logs) is its operationId too, unless the schema names one.
    transform: ({ schema, url, route }) => {
      const operation = route.config?.operation
      return { schema: operation && !schema?.operationId ? { ...schema, operationId: operation } : schema, url }
    },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.header('cache-control', 'public, max-age=300').send(app.swagger())
  })
}

export default fp(openapi, { name: 'openapi' })
