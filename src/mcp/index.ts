import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { createMcpHandler, validateHostHeader, validateOriginHeader, type AuthInfo } from '@modelcontextprotocol/server'
import { classify, logFailure, problemErrorHandler } from '../errors.ts'
import { rememberedBearer, requireBearer, resourceMetadataUrl } from '../frame/bearer.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { buildMcpServer } from './server.ts'
import { CallerLease } from './tool.ts'
import { serveMcp } from './transport.ts'

/** JSON-RPC error codes for refusals made before the SDK saw the request. */
const INVALID_REQUEST = -32600
const INTERNAL_ERROR = -32603

/** Refusals of this scope (oversized body, broken upload) answer in JSON-RPC's shape, never problem+json. */
function jsonRpcErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  const code = classified.status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST
  return reply
    .code(classified.status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: null, error: { code, message: classified.detail } })
}

/** JSON-RPC batches left MCP with the 2025-06-18 revision; a body opening with `[` is one. */
function isBatch(body: unknown): boolean {
  if (!(body instanceof Buffer)) return false
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue
    return byte === 0x5b
  }
  return false
}

/** Checks of one header value, remembered: a client sends the same Host on every call, and parsing it as a URL each time was a cost of every call. */
function remembered<R>(check: (value: string | undefined) => R): (value: string | undefined) => R {
  const known = new Map<string | undefined, R>()
  return (value) => {
    let result = known.get(value)
    if (result === undefined) {
      result = check(value)
      // Bounded: arbitrary Host values from elsewhere are checked afresh rather than remembered without end.
      if (known.size >= 64) known.clear()
      known.set(value, result)
    }
    return result
  }
}

/**
 * DNS rebinding protection as the SDK's Fastify hooks (hostHeaderValidation, originValidation) do
 * it, with the same checks and the same 403 answers, in one synchronous hook: Host must name this
 * service, and an Origin, when a browser sends one, too.
 */
function rebindingGuard(allowedHostnames: string[]) {
  const host = remembered((value) => validateHostHeader(value, allowedHostnames))
  const origin = remembered((value) => validateOriginHeader(value, allowedHostnames))
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const result = host(request.headers.host)
    const refused = !result.ok ? result : origin(request.headers.origin)
    if (refused.ok) return done()
    void reply.code(403).send({ jsonrpc: '2.0', error: { code: -32000, message: refused.message }, id: null })
  }
}

const JsonRpcAnswer = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'A JSON-RPC response or error (MCP Streamable HTTP)' },
)
const Refusal = Type.Object({}, { additionalProperties: true })

/**
 * The MCP server at /mcp (DESIGN.md 10): Streamable HTTP through the official SDK, stateless (a
 * server per request, so any instance answers any request), for 2026-07-28 clients and, through
 * the SDK's stateless fallback, for 2025-06-18 and 2025-11-25 clients. Bearer tokens for
 * audience {base_url}/mcp; Host and Origin must name this service (DNS rebinding).
 */
export default async function mcpRoutes(app: FastifyInstance) {
  const audience = `${app.config.BASE_URL}/mcp`
  const metadata = resourceMetadataUrl(audience)
  const hostname = new URL(app.config.BASE_URL).hostname
  // The resource every token here is for; the SDK only reads it, so one URL serves every request.
  const resource = new URL(audience)

  app.addHook('onRequest', rebindingGuard([hostname]))
  // The SDK parses the body itself, so a malformed one gets its JSON-RPC parse error.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.setErrorHandler(jsonRpcErrorHandler)

  const handler = createMcpHandler((context) => buildMcpServer(app, context.authInfo?.extra?.['caller'] as CallerLease, context), {
    maxRequestBodySize: app.config.BODY_LIMIT_BYTES,
    onerror: (error) => app.log.debug({ reason: error.message }, 'mcp request refused'),
  })
  app.addHook('onClose', async () => handler.close())

  // A refusal of the token is an HTTP answer (RFC 6750: problem+json with its challenge), not a
  // JSON-RPC error; a failure behind the check (the database away) stays a JSON-RPC error.
  const bearer = { audience, scopes: ['mcp:read'] }
  const guard = requireBearer(bearer)
  const bearerGuard = async (request: FastifyRequest, reply: FastifyReply) => {
    // A token checked a moment ago is taken as it stands, with no refusal to shape.
    const known = rememberedBearer(request, bearer)
    if (known) {
      request.auth = known
      return
    }
    try {
      await guard.call(app, request, reply)
    } catch (error) {
      if (classify(error as FastifyError).status >= 500) throw error
      return problemErrorHandler(error as FastifyError, request, reply)
    }
  }

  // One route per method, so each has its own operation name (and OpenAPI operationId).
  for (const method of ['POST', 'GET', 'DELETE'] as const)
    app.route({
      method,
      url: '/mcp',
      preHandler: bearerGuard,
      config: { ...routeLimit(app.config, 'mcp'), operation: `mcp.${method.toLowerCase()}` },
      schema: {
        summary: 'MCP server (Streamable HTTP, stateless)',
        description:
          'JSON-RPC over POST; GET and DELETE answer 405 (no sessions). Bearer token for audience {base_url}/mcp; tools needing mcp:tools answer 403 insufficient_scope for a token without it.',
        tags: ['mcp'],
        response: { 200: JsonRpcAnswer, 202: Type.Null(), '4xx': Refusal },
      },
      handler: async (request, reply) => {
        if (isBatch(request.body)) {
          return reply.code(400).send({
            jsonrpc: '2.0',
            id: null,
            error: { code: INVALID_REQUEST, message: 'Batches are not supported: send one JSON-RPC message per request' },
          })
        }
        const auth = request.auth!
        const lease = new CallerLease({ app, request, auth })
        const authInfo: AuthInfo = {
          token: '',
          clientId: auth.clientId,
          scopes: auth.scopes,
          expiresAt: Math.floor(auth.expiresAt.getTime() / 1000),
          resource,
          resourceMetadataUrl: metadata,
          extra: { caller: lease },
        }
        return serveMcp(handler, request, reply, audience, authInfo, () => lease.end())
      },
    })
}
