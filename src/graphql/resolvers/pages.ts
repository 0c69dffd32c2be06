import { blockView, deleteBlock, insertBlock, updateBlock, type Block } from '../../domain/blocks.ts'
import { createPage, deletePage, getAccountPage, updatePage, type Page } from '../../domain/pages.ts'
import { pageView } from '../../domain/views.ts'
import { etagOf } from '../../infra/etag.ts'
import { change } from '../audit.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { inputs, plausibleId } from '../inputs.ts'
import { blockNode, etagOfNode, pageNode } from '../views.ts'
import { found, notFound, orNotFound } from './query.ts'
import { ifMatch, ownSite } from './sites.ts'

type Input<T> = { input: T & Record<string, unknown> }
type Existing = { id: string; ifMatch?: string | null }

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
      return pageNode(await change(context, (trx) => createPage(trx, site, body)))
    },

    async updatePage(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const patch = inputs.pagePatch(input)
      const check = (current: Page) => ifMatch(input.ifMatch, etagOf(pageView(current)))
      if (!plausibleId(input.id)) throw notFound('Page')
      const page = await change(context, async (trx) => orNotFound(await updatePage(trx, principal.accountId, input.id, patch, check), 'Page'))
      return pageNode(page)
    },

    async deletePage(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const check = (current: Page) => ifMatch(input.ifMatch, etagOf(pageView(current)))
      if (!plausibleId(input.id)) throw notFound('Page')
      await change(context, async (trx) => orNotFound(await deletePage(trx, principal.accountId, input.id, check), 'Page'))
      return input.id
    },

    async addBlock(_root: unknown, { input }: Input<{ pageId: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const body = inputs.newBlock(input)
      const page = await found(input.pageId, 'Page', () => getAccountPage(context.app.db, principal.accountId, input.pageId))
      return blockNode(await change(context, (trx) => insertBlock(trx, page.id, body)))
    },

    async updateBlock(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const patch = inputs.blockPatch(input)
      const check = (current: Block) => ifMatch(input.ifMatch, etagOf(blockView(current)))
      if (!plausibleId(input.id)) throw notFound('Block')
      const block = await change(context, async (trx) => orNotFound(await updateBlock(trx, principal.accountId, input.id, patch, check), 'Block'))
      return blockNode(block)
    },

    async deleteBlock(_root: unknown, { input }: Input<Existing>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      const check = (current: Block) => ifMatch(input.ifMatch, etagOf(blockView(current)))
      if (!plausibleId(input.id)) throw notFound('Block')
      await change(context, async (trx) => orNotFound(await deleteBlock(trx, principal.accountId, input.id, check), 'Block'))
      return input.id
    },
  },
}
