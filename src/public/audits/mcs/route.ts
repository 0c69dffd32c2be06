import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errors, withHeaders } from '../../../errors.ts'
import { FetchError, type SafeFetcher } from '../../../infra/fetcher.ts'
import { routeLimit } from '../../../infra/rate-limit/budgets.ts'
import { Problem } from '../../../schemas.ts'
import { McsRunError } from './errors.ts'
import { localProvider, psiProvider, type McsProvider } from './providers.ts'
import { QueueFullError } from './queue.ts'
import { toMcsResult, type McsResult } from './result.ts'
import { McsQuery, McsResultSchema } from '../../../domain/checks/site-quality-schema.ts'
import { findFreshResult, saveResult } from './store.ts'

export const MCS_TTL_MS = 24 * 60 * 60_000

/** Local Lighthouse when CHROME_PATH is set, else PageSpeed Insights when PSI_API_KEY is set. */
export function chooseProvider(config: FastifyInstance['config']): McsProvider | undefined {
  if (config.CHROME_PATH) return localProvider(config.CHROME_PATH, { allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS })
  if (config.PSI_API_KEY) return psiProvider(config.PSI_API_URL, config.PSI_API_KEY)
  return undefined
}

/** The page to measure: https, else http, after redirects, every hop checked by the safe fetcher. */
async function landingPage(fetcher: SafeFetcher, domain: string): Promise<{ url: string; addresses: string[] }> {
  let lastError: FetchError | undefined
  for (const scheme of ['https', 'http']) {
    try {
      const page = await fetcher.fetch(`${scheme}://${domain}/`, { method: 'GET', maxBytes: 64 * 1024, truncate: true, timeoutMs: 10_000 })
      const host = new URL(page.url).hostname
      return { url: page.url, addresses: await fetcher.resolve(host) }
    } catch (error) {
      if (!(error instanceof FetchError)) throw error
      lastError = error
      if (error.code === 'dns_failed' || error.code === 'forbidden_address') break
    }
  }
  throw new McsRunError('unreachable', `The site could not be reached over https or http: ${lastError?.message ?? 'no answer'}`)
}

export type SiteQualityChecks = (domain: string) => Promise<McsResult & { cached: boolean }>

/**
 * The site quality of a normalised domain: a run of the last 24 hours is answered from the
 * database; requests for one domain while its run is under way wait for that run. Refusals are
 * the registry's errors, with Retry-After where a retry can succeed.
 */
export function siteQualityChecks(app: FastifyInstance, fetcher: SafeFetcher): SiteQualityChecks {
  const provider = chooseProvider(app.config)
  const inFlight = new Map<string, Promise<McsResult>>()

  const run = (domain: string, provider: McsProvider) => {
    let pending = inFlight.get(domain)
    if (!pending) {
      pending = (async () => {
        const target = await landingPage(fetcher, domain)
        const report = await provider.run(target.url, target.addresses)
        const result = toMcsResult(domain, provider.name, report, new Date(), MCS_TTL_MS)
        await saveResult(app.db, result)
        return result
      })().finally(() => inFlight.delete(domain))
      inFlight.set(domain, pending)
    }
    return pending
  }

  return async (domain) => {
    if (!provider) {
      throw new errors.mcsUnavailable(
        'Site quality checks are not configured on this server: set CHROME_PATH (local Lighthouse) or PSI_API_KEY (PageSpeed Insights)',
      )
    }
    const cached = await findFreshResult(app.db, domain, new Date())
    if (cached) return { ...cached, cached: true }
    try {
      return { ...(await run(domain, provider)), cached: false }
    } catch (error) {
      if (error instanceof QueueFullError) {
        throw withHeaders(new errors.mcsBusy('Too many site quality checks are queued; retry later'), {
          'retry-after': String(error.retryAfterSeconds),
        })
      }
      if (error instanceof McsRunError) {
        if (error.kind === 'unreachable') throw new errors.siteUnreachable(error.message)
        app.log.warn({ err: error, domain }, 'mcs run failed')
        throw withHeaders(new errors.mcsFailed('The site quality check could not be completed; retry later'), {
          'retry-after': String(error.retryAfterSeconds ?? 60),
        })
      }
      throw error
    }
  }
}

export default async function mcsRoute(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/mcs-check',
    {
      config: { operation: 'public.mcs_check', ...routeLimit(app.config, 'audits') },
      schema: {
        summary: 'Site quality (MCS) from Lighthouse',
        description:
          'Lighthouse categories (performance, accessibility, best-practices, seo and agentic-browsing where available), the main lab metrics and the MCS blend. ' +
          'Results are kept 24 hours per domain. 422 when the site cannot be loaded; 503 when no provider is configured or the queue is full (with Retry-After).',
        tags: ['public'],
        querystring: McsQuery,
        response: { 200: McsResultSchema, 400: Problem, 422: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      return app.publicChecks.siteQuality(request.query.domain)
    },
  )
}
