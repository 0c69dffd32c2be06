import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { SafeFetcher } from '../../../infra/fetcher.ts'
import { requestedDomain } from '../domain.ts'
import { limitPerMinute } from '../../../plugins/rate-limit.ts'
import { Problem } from '../../../schemas.ts'
import { runAudit } from './engine.ts'
import { AuditQuery, AuditReportSchema } from './schema.ts'
import { findRecentReport, saveReport, type StoredReport } from './store.ts'

/** Audits a minute per client address (DESIGN.md section 6). */
export const AUDITS_PER_MINUTE = 10
/** A repeat within this window is answered from the stored report. */
export const REPORT_FRESH_MS = 10 * 60_000

export interface AuditRouteOptions {
  fetcher: SafeFetcher
}

function present(stored: StoredReport, cached: boolean) {
  return { report_id: stored.id, cached, generated_at: stored.created_at.toISOString(), ...stored.report }
}

export default async function seoAuditRoute(app: FastifyInstance, options: AuditRouteOptions) {
  const { fetcher } = options
  // Identical audits asked at the same moment share one crawl in this process.
  const inFlight = new Map<string, Promise<StoredReport>>()

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/seo-check/audit',
    {
      config: limitPerMinute(app.config, AUDITS_PER_MINUTE, 'audits'),
      schema: {
        summary: 'SEO, AEO and GEO audit of a domain',
        description:
          'Fetches the home page (https, else http), robots.txt, the sitemaps and llms.txt; with premium=1 also up to 50 internal pages. ' +
          'A site that cannot be reached is a 200 report with reachable=false and a finding saying why.',
        tags: ['public'],
        querystring: AuditQuery,
        response: { 200: AuditReportSchema, 400: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const domain = requestedDomain(app.config, request.query.d, 'd')
      const premium = request.query.premium === '1'
      reply.header('cache-control', 'no-store')
      const recent = await findRecentReport(app.db, domain, premium, new Date(Date.now() - REPORT_FRESH_MS))
      // A site that could not be reached is tried again at once: its owner may be fixing it.
      if (recent?.report.reachable) return present(recent, true)

      const key = `${domain}|${premium}`
      let pending = inFlight.get(key)
      if (!pending) {
        pending = runAudit(fetcher, domain, premium)
          .then((report) => saveReport(app.db, report))
          .finally(() => inFlight.delete(key))
        inFlight.set(key, pending)
      }
      return present(await pending, false)
    },
  )
}
