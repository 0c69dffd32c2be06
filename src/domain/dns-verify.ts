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
  const list = (servers ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  if (list.length > 0) resolver.setServers(list)
  return resolver
}

export type TxtLookup = Pick<Resolver, 'resolveTxt'>

/**
 * True when a TXT record at the challenge name holds `value` exactly (a long record split into
 * strings is joined first). No record, no such name, or a failed lookup all mean not proven.
 */
export async function challengeHolds(resolver: TxtLookup, hostname: string, value: string): Promise<boolean> {
  try {
    const records = await resolver.resolveTxt(challengeName(hostname))
    return records.some((chunks) => chunks.join('') === value)
  } catch {
    return false
  }
}
