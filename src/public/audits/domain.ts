import type { Config } from '../../config.ts'
import { errors } from '../../errors.ts'
import { FetchError, normaliseDomain } from '../../infra/fetcher.ts'

/**
 * The domain a check was asked about, normalised (IDN to punycode, lower case); a missing or
 * invalid one is a 400 `invalid_domain` problem, rendered by the shared error handler.
 */
export function requestedDomain(config: Config, raw: string | undefined, parameter: string): string {
  if (!raw) throw new errors.invalidDomain(`The query parameter ${parameter} is required`)
  try {
    return normaliseDomain(raw, { allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS })
  } catch (error) {
    if (error instanceof FetchError) throw new errors.invalidDomain(error.message)
    throw error
  }
}
