import { readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { getOperationAST } from 'graphql/index.js'
import mercurius, { type IResolvers } from 'mercurius'
import { contentSecurityPolicy } from '../infra/security.ts'
import { graphqlAuditEntry, operationName, rememberOperation } from './audit-log.ts'
import type { GraphqlContext } from './context.ts'
import { EventFeed } from './event-feed.ts'
import { acceptsGraphqlResponse, errorFormatter, GRAPHQL_RESPONSE, requestErrorHandler } from './http.ts'
import { checkDepth, checkLimits, costOfRequest } from './limits.ts'
import { loaders } from './loaders.ts'
import { persistedQueries } from './persisted-queries.ts'
import { domainResolvers } from './resolvers/domains.ts'
import { mediaResolvers } from './resolvers/media.ts'
import { pageResolvers } from './resolvers/pages.ts'
import { queryResolvers } from './resolvers/query.ts'
import { siteResolvers } from './resolvers/sites.ts'
import { billingResolvers } from './resolvers/billing.ts'
import { yourDataResolvers } from './resolvers/your-data.ts'
import { DateTimeScalar, JSONScalar } from './scalars.ts'
import { Subscriptions } from './subscriptions.ts'

/** The schema as the repository keeps it; served as it is at GET /v1/graphql/schema.graphql. */
export const SCHEMA_FILE = new URL('./schema.graphql', import.meta.url)

/** GraphiQL loads its scripts and styles from unpkg. */
const GRAPHIQL_POLICY = {
  'script-src': ["'self'", 'https://unpkg.com'],
  'style-src': ["'self'", 'https://unpkg.com', "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'https://unpkg.com'],
}

/** Node marks the request it hands over as an upgrade (a WebSocket handshake). */
const isUpgrade = (request: FastifyRequest) => (request.raw as { upgrade?: boolean }).upgrade === true

function operationRequested(request: FastifyRequest): string | undefined {
  const given =
    (request.body as { operationName?: unknown } | undefined)?.operationName ??
    (request.query as { operationName?: unknown } | undefined)?.operationName
  return typeof given === 'string' ? given : undefined
}

/**
 * The GraphQL endpoint (DESIGN.md 13), one encapsulated scope under /v1: mercurius with
 * graphql-jit, loaders for nested lists, persisted queries, subscriptions over WebSocket; the
 * account frame for credentials, plans, budget and audit; limits priced before execution.
 */
async function graphqlEndpoint(app: FastifyInstance, options: { sdl: string; audience: string; path: string }) {
  const { audience, path } = options
  const feed = new EventFeed(app)
  const subscriptions = new Subscriptions(app, audience, feed)
  const resolvers = {
    JSON: JSONScalar,
    DateTime: DateTimeScalar,
    Query: { ...queryResolvers, ...yourDataResolvers.Query, ...billingResolvers.Query, ...mediaResolvers.Query },
    Mutation: {
      ...siteResolvers.Mutation,
      ...pageResolvers.Mutation,
      ...domainResolvers.Mutation,
      ...yourDataResolvers.Mutation,
      ...billingResolvers.Mutation,
      ...mediaResolvers.Mutation,
    },
    Site: siteResolvers.Site,
    Page: pageResolvers.Page,
    Block: pageResolvers.Block,
    Domain: domainResolvers.Domain,
    Lead: domainResolvers.Lead,
    ...subscriptions.resolvers(),
  } as unknown as IResolvers

  // The frame, before the body is read: who calls, one call charged, the plan's API access and the budget.
  async function frameOnRequest(request: FastifyRequest, reply: FastifyReply) {
    // A WebSocket brings its credential in connection_init (subscriptions.ts). Only a request Node
    // took as an upgrade is one: an Upgrade header alone does not skip the frame.
    if (isUpgrade(request)) return subscriptions.expectInit(request)
    request.principal = await app.frame.authenticate(request, reply, { audience })
    app.frame.authorize(request.principal, {})
  }
  async function answerHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    reply.header('vary', 'Accept, Authorization')
    // An answer made for one credential (a GET included, which a shared cache could otherwise keep) is never stored.
    reply.header('cache-control', 'private, no-store')
    if (acceptsGraphqlResponse(request)) reply.type(`${GRAPHQL_RESPONSE}; charset=utf-8`)
    return payload
  }
  async function auditRead(request: FastifyRequest, reply: FastifyReply) {
    if (!request.principal || isUpgrade(request)) return
    if (!app.frame.audit.isWritten(request))
      app.frame.audit.record(graphqlAuditEntry(request, { principal: request.principal }, reply.statusCode))
  }
  async function graphiqlPolicy(_request: FastifyRequest, reply: FastifyReply) {
    contentSecurityPolicy(reply, GRAPHIQL_POLICY)
  }

  // The endpoint's own routes (GET and POST, the WebSocket) carry the frame and its answer
  // headers, set on each as mercurius adds it: no hook of this scope asks which URL it serves.
  // GraphiQL's pages get their content security policy the same way.
  app.addHook('onRoute', (route) => {
    if (route.url === path) {
      route.onRequest = [...hooksOf(route.onRequest), frameOnRequest]
      route.onSend = [...hooksOf(route.onSend), answerHeaders]
      route.onResponse = [...hooksOf(route.onResponse), auditRead]
    } else if (route.url.startsWith(`${path.slice(0, -'/graphql'.length)}/graphiql`)) {
      route.onRequest = [...hooksOf(route.onRequest), graphiqlPolicy]
    }
  })

  await app.register(mercurius, {
    schema: options.sdl,
    resolvers,
    loaders: loaders(app.db),
    path: '/graphql',
    jit: 1,
    graphiql: app.config.NODE_ENV !== 'production',
    persistedQueryProvider: persistedQueries(app.db),
    context: (request: FastifyRequest) => ({ principal: request.principal, request }),
    errorHandler: requestErrorHandler,
    errorFormatter: errorFormatter as never,
    subscription: { onConnect: subscriptions.onConnect() as never, keepAlive: 30_000 },
  })

  app.graphql.addHook('preExecution', async (schema, document, context, variables) => {
    const request = (context as GraphqlContext).reply.request
    const requested = operationRequested(request)
    rememberOperation(request, getOperationAST(document, requested)?.name?.value)
    checkLimits(schema, document, variables as Record<string, unknown> | undefined, requested, request)
  })
  app.graphql.addHook('onResolution', async (execution, context) => {
    execution.extensions = { ...execution.extensions, cost: costOfRequest((context as GraphqlContext).reply?.request) }
  })
  app.graphql.addHook('preSubscriptionExecution', async (schema, document, context) => {
    ;(context as GraphqlContext).operation = operationName(getOperationAST(document)?.name?.value)
    checkDepth(schema, document)
  })

  app.addHook('onReady', async () => {
    await feed.start()
    subscriptions.start()
  })
  app.addHook('preClose', async () => {
    subscriptions.stop()
    await feed.stop()
  })
}

/** A route's hooks of one kind as a list (Fastify takes one, a list, or none). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
}

/**
 * Routes of this room stay out of /openapi.json (REST's document); their answers have no
 * response schema, so `errors[].path` keeps list indexes as numbers and `extensions` all it holds.
 */
function outOfOpenApi(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as Record<string, unknown>
  const { response: _response, ...rest } = schema
  route.schema = { ...rest, hide: true }
}

export default async function graphqlRoutes(app: FastifyInstance) {
  const sdl = readFileSync(SCHEMA_FILE, 'utf8')
  app.addHook('onRoute', outOfOpenApi)

  app.get('/graphql/schema.graphql', async (_request, reply) => {
    return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(sdl)
  })
  await app.register(graphqlEndpoint, { sdl, audience: `${app.config.API_URL}/v1`, path: `${app.prefix}/graphql` })
}
