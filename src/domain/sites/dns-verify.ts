import { Resolver } from 'node:dns/promises'

/** The TXT record a customer publishes to prove control of a hostname (DESIGN.md 7). */
export function challengeName(hostname: string): string {
  return `_wps-challenge.${hostname}`
}

/**
 * A resolver for domain checks: the system's servers, or the `DNS_SERVERS` list (host[:port],
 * comma-separated), so tests and private setups can point it at their own server.
 */
export function dnsResolver(servers: string | undefined, timeoutMs = 2000): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 })
  const list = (servers ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (list.length > 0) resolver.setServers(list)
  return resolver
}

export type TxtLookup = Pick<Resolver, 'resolveTxt' | 'getServers'>

export type ChallengeOutcome = { proven: true } | { proven: false; code: 'no_record' | 'wrong_value' | 'lookup_failed'; detail: string }

/** What a resolver's error code means, in words. */
const LOOKUP_ERRORS: Record<string, string> = {
  ETIMEOUT: 'no answer in time',
  ESERVFAIL: 'the server failed to answer (SERVFAIL)',
  EREFUSED: 'the server refused the query',
  ECONNREFUSED: 'the connection was refused',
  EBADRESP: 'the answer was malformed',
  ECANCELLED: 'the lookup was cancelled',
}

const quoted = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)

/**
 * Looks up the TXT record at the challenge name: proven when one record holds `value` exactly (a
 * long record split into strings is joined first). Otherwise why not: no record (no such name, or
 * no TXT record at it), records without the value (the first few are named), or a lookup that
 * failed, naming the resolvers asked so a wrong DNS_SERVERS shows.
 */
export async function lookUpChallenge(resolver: TxtLookup, hostname: string, value: string): Promise<ChallengeOutcome> {
  const name = challengeName(hostname)
  let records: string[][]
  try {
    records = await resolver.resolveTxt(name)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      return { proven: false, code: 'no_record', detail: `No TXT record was found at ${name}` }
    const reason = (typeof code === 'string' && LOOKUP_ERRORS[code]) || (typeof code === 'string' ? code : 'an unknown error')
    return {
      proven: false,
      code: 'lookup_failed',
      detail: `The TXT lookup of ${name} at ${resolver.getServers().join(', ') || 'the system resolver'} failed: ${reason}`,
    }
  }
  const found = records.map((chunks) => chunks.join(''))
  if (found.includes(value)) return { proven: true }
  if (found.length === 0) return { proven: false, code: 'no_record', detail: `No TXT record was found at ${name}` }
  const shown = found.slice(0, 3).map(quoted).join(', ') + (found.length > 3 ? ` and ${found.length - 3} more` : '')
  return { proven: false, code: 'wrong_value', detail: `The TXT record at ${name} holds ${shown}, not the value ${quoted(value)}` }
}
