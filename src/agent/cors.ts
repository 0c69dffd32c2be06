import type { Db } from '../infra/db.ts'
import { assistantEnabledOn } from '../domain/sites/sites.ts'

const TTL_MS = 30_000
const MAX_ENTRIES = 10_000
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The widget runs on customers' sites: an origin may call /api/agent when it is BASE_URL's, or the
 * https origin (default port) of a site's active domain or platform subdomain whose assistant is
 * on. Answers are cached briefly, so a site switched on or off is honoured within half a minute on
 * every instance; while the database is away the last verdict stands. Outside production a
 * loopback origin (any scheme and port) may also call, so the widget can be tried on a page served
 * locally (DESIGN.md 11); that includes *.localhost, where sites live on their subdomains in
 * development.
 */
export function originPolicy(db: Db, baseUrl: string, options: { allowLoopback?: boolean; sitesDomain?: string } = {}) {
  const own = new URL(baseUrl).origin
  const cache = new Map<string, { allowed: boolean; until: number }>()

  const decide = async (origin: string): Promise<boolean> => {
    if (origin === own) return true
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      return false
    }
    if (options.allowLoopback && url.origin === origin && (LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith('.localhost')))
      return true
    if (url.protocol !== 'https:' || url.port !== '' || url.origin !== origin) return false
    return assistantEnabledOn(db, url.hostname, options.sitesDomain)
  }

  return async function allowed(origin: string): Promise<boolean> {
    const now = Date.now()
    const hit = cache.get(origin)
    if (hit && hit.until > now) return hit.allowed
    let verdict: boolean
    try {
      verdict = await decide(origin)
    } catch (error) {
      // Database away: keep the last verdict, so the widget can still read the 503 and its contact fallback.
      if (hit) return hit.allowed
      throw error
    }
    if (cache.size >= MAX_ENTRIES) cache.clear()
    cache.set(origin, { allowed: verdict, until: now + TTL_MS })
    return verdict
  }
}
