import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { PublicChecks } from '../domain/checks/public-checks.ts'
import { errors, withHeaders } from '../errors.ts'
import { createSafeFetcher } from '../infra/fetcher.ts'
import { createLimiter } from '../infra/rate-limit/budgets.ts'
import { coreWebVitals } from './audits/cwv/route.ts'
import { requestedDomain } from './audits/domain.ts'
import { siteQualityChecks } from './audits/mcs/route.ts'
import { present, seoAudits } from './audits/seo/route.ts'

/**
 * The public checks as one service, decorated at the root as `app.publicChecks`: the routes under
 * /api answer with it, and the MCP server's public tools call it. Domains are validated here, so
 * both read the same refusals.
 */
async function publicChecks(app: FastifyInstance) {
  // One fetcher for every check: its connection pool is shared, its rules are the same.
  const fetcher = createSafeFetcher({ allowPrivateNetworks: app.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connections: 16 })
  app.addHook('onClose', async () => fetcher.close())
  const audits = seoAudits(app, fetcher)
  const siteQuality = siteQualityChecks(app, fetcher)
  const fieldData = coreWebVitals(app)
  const budgets = { audits: createLimiter(app, 'audits'), public: createLimiter(app, 'public') }

  app.decorate('publicChecks', {
    async charge(request, budget) {
      const limit = await budgets[budget](request)
      if (!limit.isAllowed && limit.isExceeded)
        throw withHeaders(new errors.rateLimited('Too many requests; retry later'), { 'retry-after': String(limit.ttlInSeconds) })
    },
    async seoAudit(domain, premium) {
      const { stored, cached } = await audits(requestedDomain(app.config, domain, 'd'), premium)
      return present(stored, cached) as Awaited<ReturnType<PublicChecks['seoAudit']>>
    },
    siteQuality: (domain) => siteQuality(requestedDomain(app.config, domain, 'domain')),
    coreWebVitals: (domain, action) => fieldData(requestedDomain(app.config, domain, 'domain'), action),
  } satisfies PublicChecks)
}

export default fp(publicChecks, { name: 'public-checks', dependencies: ['core'] })
