import type { FastifyError, FastifyInstance, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import { problemErrorHandler, problemNotFoundHandler } from '../errors.ts'
import type { DocumentedHeader } from '../infra/openapi.ts'
import accountRoutes from './account.ts'
import auditLogRoutes from './audit-log.ts'
import billingRoutes from './billing.ts'
import backlinkRoutes from './backlinks.ts'
import { auditHook } from './audited-change.ts'
import { authenticate, type RestRouteConfig } from './auth.ts'
import blockRoutes from './blocks.ts'
import buildRoutes from './builds.ts'
import conversationRoutes from './conversations.ts'
import domainRoutes from './domains.ts'
import { acceptEmptyJson, ETagHeader, notFound, ProblemResponses, restValidatorCompiler } from './http.ts'
import { IdempotencyKeyHeader, idempotencyOnSend, idempotencyPreHandler } from './idempotency.ts'
import leadRoutes from './leads.ts'
import mediaRoutes from './media.ts'
import memberRoutes from './members.ts'
import pageRoutes from './pages.ts'
import revisionRoutes from './revisions.ts'
import redirectRoutes from './redirects.ts'
import exportRoutes from './exports.ts'
import siteRoutes from './sites.ts'
import tokenRoutes from './tokens.ts'
import webhookRoutes from './webhooks.ts'
import seoAuditRoutes from './seo-audits.ts'
import socialRoutes from './social.ts'
import statsRoutes from './stats.ts'
import themeRoutes from './themes.ts'
import templateRoutes from './templates.ts'

/** OpenAPI security requirement of a route: the account OAuth token with its scope, or an API token. */
function security(scope: string | undefined): Array<Record<string, string[]>> {
  return [{ oauth2: scope ? [scope] : [] }, { apiToken: [] }]
}

type Headers = Record<string, DocumentedHeader>

/** On every answer to an identified account (DESIGN.md 7), refusals included. */
const RATE_LIMIT_HEADERS: Headers = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests the account may make in the current hour.' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current hour.' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the current hour’s budget resets.' },
  'RateLimit-Policy': {
    type: 'string',
    description: 'The hourly quota (IETF draft-ietf-httpapi-ratelimit-headers), e.g. `"hourly";q=1000;w=3600`.',
  },
  RateLimit: { type: 'string', description: 'What is left of it and when it resets, in seconds, e.g. `"hourly";r=998;t=1200`.' },
}
const ETAG: Headers = { ETag: { ...ETagHeader } }
const LOCATION: Headers = { Location: { type: 'string', description: 'The path of the resource the answer shows, e.g. /v1/sites/site_….' } }
const REPLAYED: Headers = {
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present when the answer is the stored one of an earlier request with the same Idempotency-Key.',
  },
}
const RETRY_AFTER: Headers = {
  'Retry-After': {
    type: 'integer',
    minimum: 1,
    description:
      'Seconds to wait before sending the request again: until the hourly budget resets (429), until a busy processor is free (503), or until an earlier request with the same Idempotency-Key may have finished (409 idempotency_in_progress).',
  },
}

/** An answer showing a page of a list rather than one item. */
function isList(answer: unknown): boolean {
  const properties = (answer as { properties?: Record<string, unknown> } | undefined)?.properties
  return properties !== undefined && 'data' in properties && 'meta' in properties
}

/**
 * The headers each answer of a route carries, for the document. An item answer carries its ETag:
 * by default a GET or PATCH 200 that is not a list, and every 201, which also carries Location; a
 * route whose action answers an item (200 or 202) says so with `config.etag` and `config.location`.
 */
function answerHeaders(config: RestRouteConfig, method: string, responses: Record<string, unknown>): Record<string, Headers> {
  const etag = config.etag ?? [201, ...(['GET', 'PATCH'].includes(method) && !isList(responses['200']) ? [200] : [])]
  const location = config.location ?? [201]
  return Object.fromEntries(
    Object.entries(responses).map(([key, answer]) => {
      const status = Number(key)
      // A 401 answers a caller the frame could not identify: no account, no budget to show.
      if (status === 401) return [key, {}]
      const own: Headers = { ...RATE_LIMIT_HEADERS }
      if (etag.includes(status) && (answer as { type?: string }).type !== 'null') Object.assign(own, ETAG)
      if (location.includes(status)) Object.assign(own, LOCATION)
      if (status === 429 || status === 503 || (status === 409 && method === 'POST')) Object.assign(own, RETRY_AFTER)
      // Answers made after the key was claimed are stored and replayed; a 429 is always the frame's own.
      if (method === 'POST' && status !== 429) Object.assign(own, REPLAYED)
      return [key, own]
    }),
  )
}

const IfMatchHeader = Type.Optional(
  Type.String({ description: 'Change the item only if its current ETag is one of these (or `*`); else 412 precondition_failed.' }),
)

/**
 * What every /v1 route gets without writing it: its operation name as operationId, the
 * security requirement of its scope, the problem answers, Idempotency-Key on POST, If-Match on
 * PATCH and DELETE, and for the document the headers of each answer.
 */
function describe(route: RouteOptions): void {
  const config = (route.config ?? {}) as RestRouteConfig
  if (!config.operation) return
  const schema = (route.schema ?? {}) as Record<string, unknown>
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  const headers = (schema['headers'] as { properties?: object } | undefined)?.properties
  const response = { ...ProblemResponses, ...(schema['response'] as object | undefined) } as Record<string, unknown>
  const conditional = methods.includes('PATCH') || methods.includes('DELETE')
  route.schema = {
    ...schema,
    operationId: (schema['operationId'] as string | undefined) ?? config.operation,
    security: security(config.scope),
    response,
    ...(methods.includes('POST') ? { headers: Type.Object({ ...headers, 'idempotency-key': IdempotencyKeyHeader }) } : {}),
    ...(conditional ? { headers: Type.Object({ ...headers, 'if-match': IfMatchHeader }) } : {}),
  }
  const method = String(methods[0])
  route.config = { ...config, openapi: { ...config.openapi, responseHeaders: answerHeaders(config, method, response) } }
}

/**
 * SQLSTATE 23503: a change referred to a row that is gone. Every id a /v1 change refers to was
 * found in the account just before, so the row was deleted in between by a concurrent call (a
 * rebuild racing the DELETE of its site): the answer is the 404 the later call would get.
 */
function goneMeanwhile(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503'
}

/**
 * The REST API (DESIGN.md 7), one encapsulated scope: authentication, plan, quota and scope
 * checks, Idempotency-Key, the audit log and problem+json answers, then one plugin per resource.
 * Every route declares `config: { operation, scope, access }`.
 */
export default async function restRoutes(app: FastifyInstance) {
  const audience = `${app.config.API_URL}/v1`
  app.setValidatorCompiler(restValidatorCompiler())
  acceptEmptyJson(app)
  app.addHook('onRoute', describe)
  app.addHook('onRequest', authenticate(app, audience))
  app.addHook('preHandler', idempotencyPreHandler)
  app.addHook('onSend', idempotencyOnSend)
  app.addHook('onResponse', auditHook(app))
  app.setNotFoundHandler(problemNotFoundHandler)
  app.setErrorHandler((error: FastifyError, request, reply) =>
    problemErrorHandler(goneMeanwhile(error) ? (notFound('A resource this request refers to') as FastifyError) : error, request, reply),
  )

  await app.register(accountRoutes)
  await app.register(exportRoutes)
  await app.register(memberRoutes)
  await app.register(billingRoutes)
  await app.register(tokenRoutes)
  await app.register(auditLogRoutes)
  await app.register(siteRoutes)
  await app.register(pageRoutes)
  await app.register(blockRoutes)
  await app.register(revisionRoutes)
  await app.register(redirectRoutes)
  await app.register(domainRoutes)
  await app.register(buildRoutes)
  await app.register(leadRoutes)
  await app.register(conversationRoutes)
  await app.register(webhookRoutes)
  await app.register(seoAuditRoutes)
  await app.register(socialRoutes)
  await app.register(backlinkRoutes)
  await app.register(statsRoutes)
  await app.register(themeRoutes)
  await app.register(templateRoutes)
  await app.register(mediaRoutes)
}
