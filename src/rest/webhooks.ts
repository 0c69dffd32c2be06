import type { FastifyInstance } from 'fastify'
import { WEBHOOK_USER_AGENT } from '../domain/webhooks/engine.ts'
import { webhooksAllowed } from '../domain/webhooks/endpoints.ts'
import { webhooksEntitlement } from '../domain/accounts/entitlements.ts'
import { planRequired } from '../frame/index.ts'
import { createSafeFetcher } from '../infra/fetcher.ts'
import deliveryRoutes from './webhooks/deliveries.ts'
import endpointRoutes from './webhooks/endpoints.ts'

/**
 * Webhooks (DESIGN.md 8): the endpoints API under /v1/webhooks (the fan-out and delivery jobs
 * every instance runs are registered by src/jobs.ts). Webhooks need plan pro or above, reads included (INTERFACE.md 6.2 rule 5);
 * the engine holds back deliveries of an account below pro as dead letters.
 * Every delivery goes through the SSRF-safe fetcher; it follows no redirect and keeps the first
 * kilobyte of an answer.
 */
export default async function webhookRoutes(app: FastifyInstance) {
  const allowPrivateNetworks = app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS
  // The endpoint URL checks fetch as a delivery would.
  const fetcher = createSafeFetcher({
    allowPrivateNetworks,
    userAgent: WEBHOOK_USER_AGENT,
    maxRedirects: 0,
    maxBytes: 1024,
    connections: 4,
  })
  app.addHook('onClose', () => fetcher.close())

  app.addHook('onRequest', async (request) => {
    if (request.principal && !webhooksAllowed(request.principal.plan)) {
      throw planRequired(request.principal.accountId, request.principal.plan, webhooksEntitlement)
    }
  })
  const urlPolicy = { requireHttps: app.config.NODE_ENV === 'production', allowPrivateNetworks }
  await app.register(endpointRoutes, { fetcher, urlPolicy })
  await app.register(deliveryRoutes)
}
