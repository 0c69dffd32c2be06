import { queueBuild, rollbackTo } from '../../domain/builds.ts'
import { createAccountSite, deleteAccountSite, getAccountSite, updateAccountSite, type SiteRecord } from '../../domain/sites.ts'
import { slugFromInput } from '../../domain/subdomains.ts'
import { siteView } from '../../domain/views.ts'
import { errors } from '../../errors.ts'
import { etagOf, ifMatchHolds } from '../../infra/etag.ts'
import { change } from '../audit.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { inputs, plausibleId } from '../inputs.ts'
import { buildNode, etagOfNode, siteNode } from '../views.ts'
import { found, notFound, orNotFound } from './query.ts'

type Input<T = Record<string, unknown>> = { input: T & Record<string, unknown> }

/** The mutation's `ifMatch` against the item's current ETag (stale: PRECONDITION_FAILED, nothing changes). */
export function ifMatch(given: unknown, current: string): void {
  if (!ifMatchHolds(typeof given === 'string' ? given : undefined, current)) throw new errors.preconditionFailed('The resource has changed since the ETag given in ifMatch')
}

/** The account's site, or NOT_FOUND. */
export function ownSite(context: GraphqlContext, id: string): Promise<SiteRecord> {
  return found(id, 'Site', () => getAccountSite(context.app.db, context.principal.accountId, id))
}

/** Sites (DESIGN.md 13): their fields, nested lists (loaders.ts) and the writes of /v1/sites. */
export const siteResolvers = {
  Site: {
    etag: etagOfNode,
  },
  Mutation: {
    async createSite(_root: unknown, { input }: Input, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const body = inputs.newSite(input)
      return siteNode(await change(context, (trx) => createAccountSite(trx, principal.accountId, body)), context.app.config)
    },

    async updateSite(_root: unknown, { input }: Input<{ id: string; ifMatch?: string | null }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const { subdomain, ...patch } = inputs.sitePatch(input)
      const slug = subdomain === undefined ? {} : { slug: slugFromInput(subdomain, context.app.config.SITES_DOMAIN) }
      const check = (current: SiteRecord) => ifMatch(input.ifMatch, etagOf(siteView(current, context.app.config)))
      if (!plausibleId(input.id)) throw notFound('Site')
      const site = await change(context, async (trx) => orNotFound(await updateAccountSite(trx, principal.accountId, input.id, { ...patch, ...slug }, check), 'Site'))
      return siteNode(site, context.app.config)
    },

    async deleteSite(_root: unknown, { input }: Input<{ id: string; ifMatch?: string | null }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const check = (current: SiteRecord) => ifMatch(input.ifMatch, etagOf(siteView(current, context.app.config)))
      if (!plausibleId(input.id)) throw notFound('Site')
      await change(context, async (trx) => orNotFound(await deleteAccountSite(trx, principal.accountId, input.id, check), 'Site'))
      return input.id
    },

    async rebuildSite(_root: unknown, { input }: Input<{ id: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const site = await ownSite(context, input.id)
      const { build } = await change(context, (trx) => queueBuild(trx, site.id))
      return buildNode(build)
    },

    async rollbackSite(_root: unknown, { input }: Input<{ id: string; buildId: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const { build_id: buildId } = inputs.rollback(input)
      const site = await ownSite(context, input.id)
      const rolledBack = await change(context, async (trx) => {
        await rollbackTo(trx, site.id, buildId)
        return orNotFound(await getAccountSite(trx, principal.accountId, site.id), 'Site')
      })
      return siteNode(rolledBack, context.app.config)
    },
  },
}
