import type { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifySchemaCompiler, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { pino } from 'pino'
import { checkedCompiler } from './infra/unsafe-values.ts'
import type { Config } from './config.ts'
import { clientErrorHandler, frameworkErrorHandler, problem, problemErrorHandler, problemNotFoundHandler } from './errors.ts'
import core from './infra/core.ts'
import mailer from './infra/mailer.ts'
import accountFrame from './frame/index.ts'
import { buildSerializer } from './infra/serializer.ts'
import { BatchedDestination } from './infra/log-destination.ts'
import { genReqId, lazyChildLogger, loggerOptions, RequestLog } from './infra/logger.ts'
import openapi from './infra/openapi.ts'
import rateLimit from './infra/rate-limit/plugin.ts'
import security from './infra/security.ts'
import connections from './infra/connections.ts'
import agentRoutes, { salesAgentInterface } from './agent/index.ts'
import identityRoutes from './identity/index.ts'
import publicRoutes from './public/index.ts'
import publicChecks from './public/checks.ts'
import docsRoute from './public/docs.ts'
import landingRoute from './public/landing.ts'
import hostedSites from './sites/index.ts'
import restRoutes from './rest/index.ts'
import graphqlRoutes from './graphql/index.ts'
import mcpRoutes from './mcp/index.ts'
import dashboardRoutes from './dashboard/index.ts'
import billingService from './billing/service.ts'
import stripeWebhookRoutes from './billing/index.ts'
import jobs from './jobs.ts'

export type App = FastifyInstance

/**
 * In production log lines are batched into 4 KiB writes made on the event loop itself, and
 * flushed at least once a second so a quiet instance does not hold its lines back; the server
 * flushes what is pending on exit. (Asynchronous writes hand each batch to the thread pool, which
 * costs more than the write.) In development every line is written as it comes.
 */
function logDestination(config: Config) {
  return config.NODE_ENV === 'production' ? new BatchedDestination({ fd: 1 }) : pino.destination({ dest: 1, sync: true })
}

/** Options of the HTTP server itself; everything else is registered as plugins below. */
function serverOptions(config: Config, logStream?: Writable): FastifyServerOptions {
  return {
    logger: { ...loggerOptions(config), stream: logStream ?? logDestination(config) },
    logController: new RequestLog(),
    childLoggerFactory: lazyChildLogger,
    genReqId,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Lighthouse runs and premium crawls take tens of seconds; idle keep-alive outlives a typical LB's 60 s.
    requestTimeout: 120_000,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    // Opening the database and migrating it may take a while on a busy host or a cold cluster.
    pluginTimeout: 120_000,
    routerOptions: { maxParamLength: 200 },
    // Refusals made before any route runs answer in the documented shapes too (see errors.ts).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer } },
  }
}

export interface BuildOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: Writable
  /** A data directory dump a memory:// database starts from (tests share one migrated copy). */
  embeddedTemplate?: Blob | undefined
  /** Extra plugins registered after the route groups (tests add probe routes). */
  plugins?: FastifyPluginAsync[]
}

/**
 * Validation of every room that has no compiler of its own: text values are converted to their
 * declared types, and no value may hold what the database cannot store (`checkedCompiler`).
 */
function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const compile = checkedCompiler(true)
  return ({ schema }) => compile(schema as object)
}

/** Builds the whole service: shared infrastructure first, then every interface group. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = Fastify(serverOptions(config, options.logStream)).withTypeProvider<TypeBoxTypeProvider>()

  app.setErrorHandler(problemErrorHandler)
  app.setNotFoundHandler(problemNotFoundHandler)
  app.setValidatorCompiler(validatorCompiler())

  // Tier 1: third-party plugins. Tier 2: the app's shared services. Tier 3: the route groups.
  // Every response's request id and security headers.
  await app.register(security)
  await app.register(connections, {
    connectRefusal: JSON.stringify(problem(405, 'method_not_allowed', 'CONNECT is not served: this service is not a proxy')),
  })
  await app.register(rateLimit, { config })
  // The sales-assistant interface is published with its label and the SHA-256 of its schemas.
  await app.register(openapi, { extensions: { 'x-sales-agent-interface': salesAgentInterface() } })
  await app.register(core, { config, embeddedTemplate: options.embeddedTemplate })
  await app.register(mailer)
  // The account frame of every room on an account's data: authentication, plan, quota, audit log.
  await app.register(accountFrame)
  // Before the route groups: a request for a hosted site's domain is answered from its release.
  await app.register(hostedSites)

  // The public checks, served under /api and called by the MCP server's public tools.
  await app.register(publicChecks)
  await app.register(billingService)
  await app.register(publicRoutes, { prefix: '/api' })
  await app.register(landingRoute)
  await app.register(docsRoute)
  await app.register(agentRoutes, { prefix: '/api/agent' })
  await app.register(identityRoutes)
  await app.register(restRoutes, { prefix: '/v1' })
  await app.register(graphqlRoutes, { prefix: '/v1' })
  await app.register(mcpRoutes)
  await app.register(dashboardRoutes)
  await app.register(stripeWebhookRoutes)
  // Every background job's definition, and the recurring ones scheduled once the app is ready.
  await app.register(jobs)
  for (const plugin of options.plugins ?? []) await app.register(plugin)

  await app.ready()
  return app
}
