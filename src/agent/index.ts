import cors from '@fastify/cors'
import { Ajv } from 'ajv'
import { ajvFormats } from '../infra/ajv-formats.ts'
import { compiledOnce } from '../infra/compiled-once.ts'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { createLimiter } from '../infra/rate-limit/budgets.ts'
import { seedPlatformSite } from '../domain/sites/sites.ts'
import type { AgentDeps } from './context.ts'
import { originPolicy } from './cors.ts'
import { agentErrorHandler, agentNotFoundHandler, rateLimited } from './errors.ts'
import { buildKnowledgeBase } from './knowledge.ts'
import { builtinResponder } from './responder/builtin.ts'
import { syncSiteKnowledge } from './site-knowledge.ts'
import { llmResponder } from './responder/llm.ts'
import bootstrapRoutes from './routes/bootstrap.ts'
import chatRoute from './routes/chat.ts'
import eventRoute from './routes/event.ts'

export { salesAgentInterface } from './interface.ts'

/** The sales-assistant interface under /api/agent: AgentError bodies, session capability in the body. */
export default async function agentRoutes(app: FastifyInstance) {
  const { config } = app
  app.setErrorHandler(agentErrorHandler)
  app.setNotFoundHandler(agentNotFoundHandler)
  // The contract types every field exactly: a number is not a message, so nothing is coerced here.
  const compile = compiledOnce('agent: exact types', () => {
    const ajv = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false })
    ajvFormats(ajv)
    return ajv
  })
  app.setValidatorCompiler(({ schema }) => compile(schema as object))

  await seedPlatformSite(app.db, config.BASE_URL)
  // Ranking indexes are built once here; a turn then costs no file or index work.
  const kb = buildKnowledgeBase()
  const log = app.log as unknown as Logger
  const responder = config.AGENT_LLM_URL
    ? llmResponder(kb, { url: config.AGENT_LLM_URL, apiKey: config.AGENT_LLM_API_KEY, model: config.AGENT_LLM_MODEL, log })
    : builtinResponder(kb)
  app.log.info({ responder: responder.name }, 'sales assistant ready')
  const deps: AgentDeps = { kb, responder }
  // Hosted sites' published pages join the knowledge, kept in step with their live builds.
  let stopSiteKnowledge: (() => Promise<void>) | undefined
  app.addHook('onReady', async () => {
    stopSiteKnowledge = await syncSiteKnowledge(app.store, kb, log.child({ component: 'site-knowledge' }))
  })
  app.addHook('onClose', async () => stopSiteKnowledge?.())

  const allowed = originPolicy(app.db, config.BASE_URL, {
    allowLoopback: config.NODE_ENV !== 'production',
    sitesDomain: config.SITES_DOMAIN,
  })
  await app.register(cors, {
    origin: (origin, callback) => {
      if (!origin) return callback(null, false)
      // A sandboxed preview says `Origin: null` (sites/index.ts); it may open a session for its own site only (bootstrap).
      if (origin === 'null') return callback(null, true)
      allowed(origin).then(
        (ok) => callback(null, ok),
        () => callback(null, false),
      )
    },
    methods: ['POST', 'DELETE'],
    allowedHeaders: ['content-type'],
    maxAge: 600,
  })

  const limitIp = createLimiter(app, 'agent.requests')
  app.addHook('onRequest', async (request) => {
    const limit = await limitIp(request)
    if (!limit.isAllowed && limit.isExceeded) throw rateLimited(limit.ttlInSeconds)
  })

  await app.register(bootstrapRoutes)
  await app.register(chatRoute, deps)
  await app.register(eventRoute)
}
