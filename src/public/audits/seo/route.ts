import type { FastifyInstance, FastifyReply } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { SafeFetcher } from '../../../infra/fetcher.ts'
import { requestedDomain } from '../domain.ts'
import { routeLimit } from '../../../infra/rate-limit/budgets.ts'
import { Problem } from '../../../schemas.ts'
import { runAudit } from '../../../domain/seo-audit/engine.ts'
import { AuditQuery, AuditReportSchema } from '../../../domain/seo-audit/schema.ts'
import { RecentAnswers } from './recent-answers.ts'
import { findRecentReport, saveReport, type StoredReport } from '../../../domain/seo-audit/store.ts'

/** A repeat within this window is answered from the stored report. */
export const REPORT_FRESH_MS = 10 * 60_000

/** A stored report as the check answers it. */
export function present(stored: StoredReport, cached: boolean) {
  return { report_id: stored.id, cached, generated_at: stored.created_at.toISOString(), ...stored.report }
}

/** Sends a body the route's serializer already made (a string passes Fastify's serializer untouched). */
const sendSerialised = (reply: FastifyReply, body: string) => reply.type('application/json; charset=utf-8').send(body)

export type SeoAudits = (domain: string, premium: boolean) => Promise<{ stored: StoredReport; cached: boolean }>

/**
 * The audit of a normalised domain: a reachable report of the last ten minutes is answered from
 * the database; identical audits asked at the same moment share one crawl in this process.
 */
export function seoAudits(app: FastifyInstance, fetcher: SafeFetcher): SeoAudits {
  const inFlight = new Map<string, Promise<StoredReport>>()
  return async (domain, premium) => {
    const recent = await findRecentReport(app.db, domain, premium, new Date(Date.now() - REPORT_FRESH_MS))
    // A site that could not be reached is tried again at once: its owner may be fixing it.
    if (recent?.report.reachable) return { stored: recent, cached: true }
    const key = `${domain}|${premium}`
    let pending = inFlight.get(key)
    if (!pending) {
      pending = runAudit(fetcher, domain, premium)
        .then((report) => saveReport(app.db, report))
        .finally(() => inFlight.delete(key))
      inFlight.set(key, pending)
    }
    return { stored: await pending, cached: false }
  }
}

export default async function seoAuditRoute(app: FastifyInstance) {
  const repeats = new RecentAnswers()

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/seo-check/audit',
    {
      config: { operation: 'public.seo_check', ...routeLimit(app.config, 'audits') },
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
      const key = `${domain}|${premium}`
      const repeat = repeats.get(key)
      if (repeat !== undefined) return sendSerialised(reply, repeat)
      const answer = await app.publicChecks.seoAudit(domain, premium)
      if (answer.reachable) {
        // Serialised by the route's own response schema, so a repeat reads the same either way.
        const asRepeat = reply.serialize({ ...answer, cached: true }) as string
        repeats.set(key, asRepeat, Date.parse(answer.generated_at) + REPORT_FRESH_MS)
        if (answer.cached) return sendSerialised(reply, asRepeat)
      }
      return answer
    },
  )
}
