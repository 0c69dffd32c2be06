import type { FastifyRequest } from 'fastify'
import { normaliseHostname } from '../domain/sites/sites.ts'
import type { LiveSites } from './live-sites.ts'

/** The site a hosted request belongs to and where its pages live (its own domain, or the preview prefix). */
export interface SiteOrigin {
  siteId: string
  /** '' on a domain, '/s/{site_id}' for a preview. */
  prefix: string
}

export function requestHostname(request: FastifyRequest): string {
  return normaliseHostname(request.hostname)
}

/** The hosted site a request on a site's own domain or under a preview prefix is for. */
export function siteOfRequest(request: FastifyRequest, live: LiveSites): SiteOrigin | undefined {
  const params = request.params as { siteId?: string } | undefined
  if (params?.siteId) return { siteId: params.siteId, prefix: `/s/${params.siteId}` }
  const hosted = live.byHost(requestHostname(request))
  return hosted ? { siteId: hosted.siteId, prefix: '' } : undefined
}
