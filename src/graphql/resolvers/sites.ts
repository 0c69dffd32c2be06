import { queueBuild, rollbackTo } from '../../domain/sites/builds.ts'
import {
  createAccountSite,
  deleteAccountSite,
  getAccountSite,
  prepareDraft,
  updateAccountSite,
  type SiteRecord,
} from '../../domain/sites/sites.ts'
import { copyWriterOf } from '../../domain/sites/templates/llm-copy.ts'
import { slugFromInput } from '../../domain/sites/subdomains.ts'
import { siteView } from '../../domain/sites/views.ts'
import { publicStats, siteStats, statsSpan } from '../../domain/stats/report.ts'
import { auditedChange } from '../audited-change.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { inputs } from '../inputs.ts'
import { buildNode, etagOfNode, siteNode } from '../views.ts'
import { found, orNotFound } from './query.ts'
import { changeExisting, type Existing, type Input } from './writes.ts'

/** The account's site, or NOT_FOUND. */
export function ownSite(context: GraphqlContext, id: string): Promise<SiteRecord> {
  return found(id, 'Site', () => getAccountSite(context.app.db, context.principal.accountId, id))
}

/** Sites (DESIGN.md 13): their fields, nested lists (loaders.ts) and the writes of /v1/sites. */
export const siteResolvers = {
  Site: {
    etag: etagOfNode,
    async stats(site: { id: string }, args: { from?: string | null; to?: string | null }, context: GraphqlContext) {
      allowed(context, ACCESS.readSites)
      const span = statsSpan({ from: args.from ?? undefined, to: args.to ?? undefined })
      return publicStats(await siteStats(context.app.db, site.id, span.from, span.to))
    },
  },
  Mutation: {
    async createSite(_root: unknown, { input }: Input, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const body = inputs.newSite(input)
      const { app } = context
      const draft = await prepareDraft(
        body,
        copyWriterOf(app.config, (err) => app.log.warn({ err }, 'the model did not write the draft')),
      )
      return siteNode(await auditedChange(context, (trx) => createAccountSite(trx, principal.accountId, body, draft)), app.config)
    },

    async updateSite(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const { config } = context.app
      const { subdomain, ...patch } = inputs.sitePatch(input)
      const slug = subdomain === undefined ? {} : { slug: slugFromInput(subdomain, config.SITES_DOMAIN) }
      const view = (current: SiteRecord) => siteView(current, config)
      const site = await changeExisting(context, 'Site', input, view, (trx, accountId, id, check) =>
        updateAccountSite(trx, accountId, id, { ...patch, ...slug }, check),
      )
      return siteNode(site, config)
    },

    async deleteSite(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      await changeExisting(context, 'Site', input, (current: SiteRecord) => siteView(current, context.app.config), deleteAccountSite)
      return input.id
    },

    async rebuildSite(_root: unknown, { input }: Input<{ id: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const site = await ownSite(context, input.id)
      const { build } = await auditedChange(context, (trx) => queueBuild(trx, site.id))
      return buildNode(build)
    },

    async rollbackSite(_root: unknown, { input }: Input<{ id: string; buildId: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const { build_id: buildId } = inputs.rollback(input)
      const site = await ownSite(context, input.id)
      const rolledBack = await auditedChange(context, async (trx) => {
        await rollbackTo(trx, site.id, buildId)
        return orNotFound(await getAccountSite(trx, principal.accountId, site.id), 'Site')
      })
      return siteNode(rolledBack, context.app.config)
    },
  },
}
