import { errors } from '../../errors.ts'
import { FetchError, type SafeFetcher } from '../../infra/fetcher.ts'

export interface EndpointUrlPolicy {
  /** Production: https only. */
  requireHttps: boolean
  /** Tests and local development: loopback and private addresses, explicit ports. */
  allowPrivateNetworks: boolean
}

/**
 * Checks an endpoint URL when it is set, so a bad one is refused with a clear 400 instead of
 * failing every delivery later (each attempt checks again: DNS may change):
 * - http(s) only, https only in production; no user information; at most 500 characters;
 * - no explicit port and no address outside the public internet (loopback, private, link-local
 *   and cloud metadata, …), unless private networks are allowed; the host's current DNS answers
 *   are checked too. A name that does not resolve yet is accepted.
 */
export async function checkEndpointUrl(raw: string, policy: EndpointUrlPolicy, fetcher: SafeFetcher): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new errors.invalidWebhookUrl('The url is not a valid absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new errors.invalidWebhookUrl('The url must use https')
  if (policy.requireHttps && url.protocol !== 'https:') throw new errors.invalidWebhookUrl('The url must use https')
  if (url.username || url.password) throw new errors.invalidWebhookUrl('The url must not contain user information')
  // Outside production the refusals below say which setting lifts them, for a receiver on this machine.
  const lift = !policy.requireHttps && !policy.allowPrivateNetworks ? `; ${PRIVATE_NETWORKS_HINT}` : ''
  if (url.port && !policy.allowPrivateNetworks)
    throw new errors.invalidWebhookUrl(`The url must not name a port; use the default ${url.protocol.slice(0, -1)} port${lift}`)
  try {
    await fetcher.resolve(url.hostname)
  } catch (error) {
    if (error instanceof FetchError && error.code === 'dns_failed') return url.href
    if (error instanceof FetchError) throw new errors.invalidWebhookUrl(`The url must point to a public internet address${lift}`)
    throw error
  }
  return url.href
}

const PRIVATE_NETWORKS_HINT =
  'a server outside production started with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true also accepts loopback and private addresses and explicit ports (for a receiver on this machine or network)'
