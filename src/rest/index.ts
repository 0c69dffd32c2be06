import type { FastifyError, FastifyInstance, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import { problemErrorHandler, problemNotFoundHandler } from '../errors.ts'
import accountRoutes from './account.ts'
import auditLogRoutes from './audit-log.ts'
import backlinkRoutes from '../sites/backlinks-route.ts'
import { auditHook } from './audit.ts'
import { defineRestPurge } from './audit-purge.ts'
import { authenticate, type RestRouteConfig } from './auth.ts'
import blockRoutes from './blocks.ts'
import buildRoutes from './builds.ts'
import conversationRoutes from './conversations.ts'
import domainRoutes from './domains.ts'
import { acceptEmptyJson, notFound, ProblemResponses, restValidatorCompiler } from './http.ts'
import { IdempotencyKeyHeader, idempotencyOnSend, idempotencyPreHandler } from './idempotency.ts'
import leadRoutes from './leads.ts'
import pageRoutes from './pages.ts'
import siteRoutes from './sites.ts'
import tokenRoutes from './tokens.ts'
import webhookRoutes from './webhooks.ts'
import auditRoutes from './audits.ts'
import socialRoutes from './social.ts'

/** OpenAPI security requirement of a route: the account OAuth token with its scope, or an API token. */
function security(scope: string | undefined): Array<Record<string, string[]>> {
  return [{ oauth2: scope ? [scope] : [] }, { apiToken: [] }]
}

/**
 * What every /v1 route gets without writing it: its operation name as operationId, the
 * security requirement of its scope, the problem answers, and Idempotency-Key on POST.
 */
function describe(route: RouteOptions): void {
  const config = (route.config ?? {}) as RestRouteConfig
  if (!config.operation) return
  const schema = (route.schema ?? {}) as Record<string, unknown>
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  const headers = (schema['headers'] as { properties?: object } | undefined)?.properties
  route.schema = {
    ...schema,
    operationId: (schema['operationId'] as string | undefined) ?? config.operation,
    security: security(config.scope),
    response: { ...ProblemResponses, ...(schema['response'] as object | undefined) },
    ...(methods.includes('POST') ? { headers: Type.Object({ ...headers, 'idempotency-key': IdempotencyKeyHeader }) } : {}),
  }
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
  app.decorateRequest('principal', null as never)
  app.setValidatorCompiler(restValidatorCompiler())
  acceptEmptyJson(app)
  app.addHook('onRoute', describe)
  app.addHook('onRequest', authenticate(app, audience))
  app.addHook('preHandler', idempotencyPreHandler)
  app.addHook('onSend', idempotencyOnSend)
  app.addHook('onResponse', auditHook(app))
  app.setNotFoundHandler(problemNotFoundHandler)
  app.setErrorHandler((error: FastifyError, request, reply) => problemErrorHandler(goneMeanwhile(error) ? (notFound('A resource this request refers to') as FastifyError) : error, request, reply))
  defineRestPurge(app)

  await app.register(accountRoutes)
  await app.register(tokenRoutes)
  await app.register(auditLogRoutes)
  await app.register(siteRoutes)
  await app.register(pageRoutes)
  await app.register(blockRoutes)
  await app.register(domainRoutes)
  await app.register(buildRoutes)
  await app.register(leadRoutes)
  await app.register(conversationRoutes)
  await app.register(webhookRoutes)
  await app.register(auditRoutes)
  await app.register(socialRoutes)
  await app.register(backlinkRoutes)
}
