import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { Billing } from '../domain/billing/service.ts'
import { createStripe } from '../domain/billing/stripe-client.ts'

/**
 * Billing as one service, decorated at the root as `app.billing` before the rooms: the dashboard,
 * /v1, the Stripe webhook and the hourly reconciliation call the same functions.
 */
async function billingService(app: FastifyInstance) {
  const { config } = app
  app.decorate(
    'billing',
    new Billing({
      stripe: createStripe(config),
      automaticTax: config.STRIPE_AUTOMATIC_TAX,
      apiBase: config.STRIPE_API_BASE,
      db: app.db,
      keyring: app.keyring,
      mailer: app.mailer,
      log: app.log as unknown as Logger,
      baseUrl: config.BASE_URL,
    }),
  )
}

export default fp(billingService, { name: 'billing', dependencies: ['core'] })
