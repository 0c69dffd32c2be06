/**
 * The public checks (SEO/AEO/GEO audit, site quality, Core Web Vitals) as a service the rooms
 * share: the public room serves them under /api and decorates the app with them; the MCP room's
 * public tools call the same functions, with the same validation, caching and shared runs.
 */
import type { FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { AuditReportSchema } from '../seo-audit/schema.ts'
import type { McsResultSchema } from './site-quality-schema.ts'
import type { CwvHistory, CwvLookup, CwvTrack } from './web-vitals-schema.ts'

export type CwvAction = 'lookup' | 'history' | 'track'
export type CwvAnswer = Static<typeof CwvLookup> | Static<typeof CwvHistory> | Static<typeof CwvTrack>

export interface PublicChecks {
  /**
   * Counts a check asked outside its /api route against the caller's per-address budget of that
   * route (`audits`: the SEO audit and site quality; `public`: Core Web Vitals); over it, 429.
   */
  charge(request: FastifyRequest, budget: 'audits' | 'public'): Promise<void>
  /** `domain` as the client gave it: a missing or invalid one is 400 invalid_domain. */
  seoAudit(domain: string | undefined, premium: boolean): Promise<Static<typeof AuditReportSchema>>
  siteQuality(domain: string | undefined): Promise<Static<typeof McsResultSchema>>
  coreWebVitals(domain: string | undefined, action: CwvAction): Promise<CwvAnswer>
}

declare module 'fastify' {
  interface FastifyInstance {
    publicChecks: PublicChecks
  }
}
