import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import type { FastifyContextConfig, FastifyInstance } from 'fastify'
import './operation.ts'

/** A header of an answer as the document shows it: a JSON schema with a description. */
export type DocumentedHeader = Record<string, unknown> & { description: string }

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What the OpenAPI document shows beyond the route's own schemas: the headers of each answer
     * by status code, a request body described more precisely than the validator checks it
     * (for a route that checks part of its body itself, with its own error code), and the named
     * schemas (components.schemas) that body refers to.
     */
    openapi?: {
      responseHeaders?: Record<string, Record<string, DocumentedHeader>>
      body?: object
      schemas?: Record<string, object>
    }
  }
}

type RouteSchema = Record<string, unknown> & { operationId?: string; response?: Record<string, Record<string, unknown>> }

/** The route's schema as the document shows it; the schemas that validate and serialize stay as they are. */
function documented(schema: RouteSchema | undefined, config: FastifyContextConfig | undefined): RouteSchema | undefined {
  if (!schema) return schema
  let out: RouteSchema = schema
  // A route's operation (its name in the logs) is its operationId too, unless the schema names one.
  if (config?.operation && !out.operationId) out = { ...out, operationId: config.operation }
  const extras = config?.openapi
  if (extras?.body) out = { ...out, body: extras.body }
  const headers = extras?.responseHeaders
  if (headers && out.response) {
    const response = Object.fromEntries(
      Object.entries(out.response).map(([status, answer]) => [
        status,
        headers[status] ? { ...answer, headers: { ...(answer['headers'] as object | undefined), ...headers[status] } } : answer,
      ]),
    )
    out = { ...out, response }
  }
  return out
}

/** The scopes of /v1 as the OAuth security scheme lists them. */
const REST_SCOPE_TEXT = {
  'read:sites': 'Read sites, pages, blocks, domains and builds',
  'write:pages': 'Create, change and delete sites, pages, blocks and domains; rebuild',
  'manage:leads': 'Read and delete leads; take over conversations',
  'manage:webhooks': 'Manage webhook endpoints and deliveries',
  'manage:tokens': 'Manage API tokens and read the audit log',
}

type Document = {
  paths?: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>
  components?: Record<string, unknown>
}

/**
 * A response header described the same way on every answer that carries it is written once, in
 * components.headers, and referred to: the rate-limit headers of /v1 ride on every answer.
 */
function shareHeaders(document: Document): Document {
  const seen = new Map<string, Set<string>>()
  const answers = Object.values(document.paths ?? {}).flatMap((item) =>
    Object.values(item).flatMap((operation) => Object.values(operation.responses ?? {})),
  )
  for (const answer of answers) {
    for (const [name, header] of Object.entries(answer.headers ?? {})) {
      const forms = seen.get(name) ?? new Set<string>()
      seen.set(name, forms.add(JSON.stringify(header)))
    }
  }
  const shared = Object.fromEntries(
    [...seen].filter(([, forms]) => forms.size === 1).map(([name, forms]) => [name, JSON.parse([...forms][0]!) as unknown]),
  )
  if (!Object.keys(shared).length) return document
  for (const answer of answers) {
    for (const name of Object.keys(answer.headers ?? {}))
      if (name in shared) answer.headers![name] = { $ref: `#/components/headers/${name}` }
  }
  document.components = { ...document.components, headers: { ...(document.components?.['headers'] as object | undefined), ...shared } }
  return document
}

export const OPENAPI_INFO = {
  title: 'Web Presence Service',
  version: '1.1.0',
  description: 'Public read endpoints, the sales assistant, agent registration and OAuth, MCP and the REST API.',
}

/** The OpenAPI 3.1 description, generated from the route schemas; served at /openapi.json. */
async function openapi(app: FastifyInstance, options: { extensions?: Record<string, unknown> } = {}) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      // Top-level x- extensions the app adds (the sales-assistant interface's label and digest).
      ...options.extensions,
      // Operations need no credentials unless they say so (the /v1 routes and /mcp name theirs).
      security: [{}],
      // The credentials of /v1 (DESIGN.md 7); URLs are relative to the service's own origin.
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'Account OAuth 2.0 access token for the resource {api_url}/v1 (authorization code with PKCE S256).',
            flows: {
              authorizationCode: {
                authorizationUrl: '/oauth/authorize',
                tokenUrl: '/oauth/token',
                refreshUrl: '/oauth/token',
                scopes: REST_SCOPE_TEXT,
              },
            },
          },
          apiToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'wps_<token id>_<secret>',
            description: 'API token created in the dashboard, by the admin CLI or at POST /v1/tokens.',
          },
        },
      },
    },
    transform: ({ schema, url, route, ...generated }) => {
      const named = route.config?.openapi?.schemas
      if (named && 'openapiObject' in generated) {
        const components = (generated.openapiObject.components ??= {}) as { schemas?: Record<string, object> }
        components.schemas = { ...components.schemas, ...named }
      }
      return { schema: documented(schema as RouteSchema | undefined, route.config) as typeof schema, url }
    },
    transformObject: (generated) =>
      shareHeaders(('openapiObject' in generated ? generated.openapiObject : generated.swaggerObject) as Document) as never,
  })
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.header('cache-control', 'public, max-age=300').send(app.swagger())
  })
}

export default fp(openapi, { name: 'openapi' })
