import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

/**
 * Signing per the Standard Webhooks convention:
 * - a secret is `whsec_` followed by the base64 of its raw bytes (32 random bytes here);
 * - the signed content is `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 keyed with the
 *   raw secret bytes (not the base64 text);
 * - `webhook-signature` lists `v1,<base64 signature>` entries separated by spaces, one per secret
 *   that signs (two during a rotation's overlap), so a receiver holding either secret verifies.
 */

export const SECRET_PREFIX = 'whsec_'

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
}

/**
 * HMAC keys of the secrets that signed lately, so a burst to one endpoint decodes and imports its
 * secret once rather than per delivery. Bounded: cleared whole when full.
 */
const hmacKeys = new Map<string, KeyObject>()
const MAX_HMAC_KEYS = 1000

function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret)
  if (!key) {
    if (hmacKeys.size >= MAX_HMAC_KEYS) hmacKeys.clear()
    key = createSecretKey(secretBytes(secret))
    hmacKeys.set(secret, key)
  }
  return key
}

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', hmacKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${mac}`
}

/** The three Standard Webhooks headers for one send of `body`. */
export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(' '),
  }
}
