import type { IncomingMessage } from 'node:http'
import { isPrefetch } from '../domain/stats/classify.ts'
import type { VisitTally } from '../domain/stats/tally.ts'

/**
 * The client's address as Fastify's `request.ip` reads it: behind trusted proxies the first
 * address of X-Forwarded-For (every hop trusted), else the connection's peer.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? (req.headers['x-forwarded-for'] as string | undefined) : undefined
  if (forwarded) {
    const comma = forwarded.indexOf(',')
    return (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim()
  }
  return req.socket?.remoteAddress ?? ''
}

/**
 * Counts the view of a published page answered to `req` (DESIGN.md 18): a GET, not a HEAD, not a
 * prefetch or prerender; the tally leaves bots out. Previews under /s/{site_id}/ never come here.
 */
export function countPageView(tally: VisitTally, req: IncomingMessage, siteId: string, host: string, path: string, address: string): void {
  if (req.method !== 'GET' || isPrefetch(req.headers)) return
  tally.record({
    siteId,
    host,
    path,
    url: req.url ?? '/',
    address,
    userAgent: req.headers['user-agent'],
    referer: req.headers.referer,
  })
}
