import Stripe from 'stripe'
import type { Config } from '../../config.ts'

export type { Stripe }

/** The seconds a webhook's signed timestamp may lie in the past (Stripe's own default). */
export const SIGNATURE_TOLERANCE_SECONDS = 300

/**
 * The official SDK with the account's secret key, or undefined without STRIPE_SECRET_KEY (then
 * nothing pretends to charge). STRIPE_API_BASE points it elsewhere: its host, port and protocol
 * are the SDK's own options.
 */
export function createStripe(config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE'>): Stripe | undefined {
  if (!config.STRIPE_SECRET_KEY) return undefined
  const base = new URL(config.STRIPE_API_BASE)
  const protocol = base.protocol === 'http:' ? 'http' : 'https'
  return new Stripe(config.STRIPE_SECRET_KEY, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'web-presence' },
  })
}
