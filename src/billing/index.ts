import type { FastifyInstance } from 'fastify'
import { SIGNATURE_TOLERANCE_SECONDS } from '../domain/billing/stripe-client.ts'
import { errors } from '../errors.ts'

/**
 * POST /webhooks/stripe (DESIGN.md 16): Stripe's events, signed with the endpoint's secret. The
 * signature is checked by the official SDK on the raw body, as it came (`Stripe-Signature`, 300 s
 * tolerance): a forged, stale or missing one is 400 and changes nothing. Each event is handled
 * once, as a hint to read its subscription back (`app.billing.handleEvent`). A failure to reach
 * Stripe answers 503, so Stripe sends the event again.
 */
export default async function stripeWebhookRoutes(app: FastifyInstance) {
  // The raw bytes, never a parsed and re-serialised copy: the signature is over exactly these.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1_048_576 }, (_request, body, done) => done(null, body))

  app.post('/webhooks/stripe', { config: { operation: 'billing.stripe_event' }, schema: { hide: true } }, async (request, reply) => {
    const { stripe } = app.billing.deps
    const secret = app.config.STRIPE_WEBHOOK_SECRET
    if (!stripe || !secret) throw new errors.billingUnavailable('Billing with Stripe is not set up on this service')
    const signature = request.headers['stripe-signature']
    if (typeof signature !== 'string' || !Buffer.isBuffer(request.body))
      throw new errors.invalidSignature('The request carries no Stripe-Signature header or no body')
    let event
    try {
      event = stripe.webhooks.constructEvent(request.body, signature, secret, SIGNATURE_TOLERANCE_SECONDS)
    } catch (error) {
      request.log.warn({ err: error }, 'a Stripe event with a bad signature was refused')
      throw new errors.invalidSignature('The Stripe-Signature does not match the body, or it is too old')
    }
    const outcome = await app.billing.handleEvent(event, {
      operation: `billing.${event.type}`,
      method: 'POST',
      path: '/webhooks/stripe',
      ip: request.ip,
    })
    request.log.info({ event: event.id, type: event.type, outcome }, 'Stripe event')
    return reply.send({ received: true, outcome })
  })
}
