import type { FastifyInstance } from 'fastify'

/** The sales-assistant interface under /api/agent: AgentError bodies, session capability in the body. */
export default async function agentRoutes(_app: FastifyInstance) {}
