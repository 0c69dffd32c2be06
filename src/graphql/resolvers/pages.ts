import { blockView, deleteBlock, insertBlock, updateBlock } from '../../domain/sites/blocks.ts'
import { createPage, deletePage, getAccountPage, updatePage } from '../../domain/sites/pages.ts'
import { pageView } from '../../domain/sites/views.ts'
import { auditedChange } from '../audited-change.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { inputs } from '../inputs.ts'
import { blockNode, etagOfNode, pageNode } from '../views.ts'
import { found } from './query.ts'
import { ownSite } from './sites.ts'
import { changeExisting, type Existing, type Input } from './writes.ts'

/** Pages and their blocks (DESIGN.md 13): the writes of /v1/sites/{id}/pages, /v1/pages and /v1/blocks. */
export const pageResolvers = {
  Page: {
    etag: etagOfNode,
  },
  Block: {
    etag: etagOfNode,
  },
  Mutation: {
    async createPage(_root: unknown, { input }: Input<{ siteId: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const body = inputs.newPage(input)
      const site = await ownSite(context, input.siteId)
      return pageNode(await auditedChange(context, (trx) => createPage(trx, site, body)))
    },

    async updatePage(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const patch = inputs.pagePatch(input)
      return pageNode(
        await changeExisting(context, 'Page', input, pageView, (trx, accountId, id, check) => updatePage(trx, accountId, id, patch, check)),
      )
    },

    async deletePage(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      await changeExisting(context, 'Page', input, pageView, deletePage)
      return input.id
    },

    async addBlock(_root: unknown, { input }: Input<{ pageId: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const body = inputs.newBlock(input)
      const page = await found(input.pageId, 'Page', () => getAccountPage(context.app.db, principal.accountId, input.pageId))
      return blockNode(await auditedChange(context, (trx) => insertBlock(trx, page.id, body)))
    },

    async updateBlock(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const patch = inputs.blockPatch(input)
      return blockNode(
        await changeExisting(context, 'Block', input, blockView, (trx, accountId, id, check) =>
          updateBlock(trx, accountId, id, patch, check),
        ),
      )
    },

    async deleteBlock(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      await changeExisting(context, 'Block', input, blockView, deleteBlock)
      return input.id
    },
  },
}
