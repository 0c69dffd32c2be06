import { Type } from 'typebox'
import { BlockContents, BLOCK_TYPES, type BlockType as BlockTypeName, type TypedBlock } from '../../domain/sites/block-content.ts'
import { blockView, deleteBlock, getAccountBlock, insertBlock, listPageBlocks, updateBlock } from '../../domain/sites/blocks.ts'
import {
  createPage,
  deletePage,
  getAccountPage,
  listSitePages,
  PAGE_PATH_PATTERN,
  updatePage,
  type Page,
} from '../../domain/sites/pages.ts'
import { listPageRevisions, restorePageRevision, Revision, revisionNotFound, revisionView } from '../../domain/sites/revisions.ts'
import { errors } from '../../errors.ts'
import { literalUnion } from '../../schemas.ts'
import { accountTool, type AccountCall } from '../account.ts'
import { Locale, Page as PageSchema, pageView } from '../../domain/sites/views.ts'
import { BlockSchema, ListOf } from '../views.ts'
import { listOf, pageOf, PagingArguments } from './paging.ts'
import { ownSite } from './sites.ts'

const strict = { additionalProperties: false } as const
const Id = (what: string) => Type.String({ minLength: 1, maxLength: 100, description: what })
const PagePath = Type.String({
  maxLength: 300,
  pattern: PAGE_PATH_PATTERN,
  description: '"/" or lower-case segments such as /about or /services/design',
})
const Title = Type.String({ minLength: 1, maxLength: 200 })
const Description = Type.String({ maxLength: 500, description: 'The meta description of the page' })
const BlockType = Type.Unsafe<BlockTypeName>(literalUnion(BLOCK_TYPES))
const BlockContent = Type.Unsafe<TypedBlock['content']>(
  Type.Union(Object.values(BlockContents), {
    description:
      'By type: hero {heading, subheading?, cta?: {label, href}, image?: {media_id | src, alt?}}; text {markdown}; image {media_id | src, alt?, caption?}; ' +
      'gallery {heading?, images: [{media_id | src, alt?, caption?}] (1 to 24)}; features {heading?, items: [{title, text}]}; ' +
      'faq {heading?, items: [{question, answer}]}; cta {heading, text?, label, href}; contact_form {heading?, submit_label?}; testimonial {quote, author, role?}; ' +
      'opening_hours {heading?, items: [{day: monday…sunday, opens: "HH:MM", closes: "HH:MM"}], exceptions?: [{date: "YYYY-MM-DD", closed?, opens?, closes?, note?}]}; ' +
      'menu {heading?, currency?: "EUR", items: [{section?, name, description?, price?: number}]}; ' +
      'contact_details {heading?, address?: {street, postal_code?, locality, country?}, phone?, email?}. ' +
      'media_id names an image of the media library (import_media, list_media); without alt the image’s own alt text is shown',
  }),
)
const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'From 0 at the top of the page' })
const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, strict)

async function ownPage(call: AccountCall, pageId: string): Promise<Page> {
  const page = await getAccountPage(call.db, call.accountId, pageId)
  if (!page) throw new errors.notFound(`No page ${pageId} in this account`)
  return page
}

const pageNotFound = (id: string) => new errors.notFound(`No page ${id} in this account`)
const blockNotFound = (id: string) => new errors.notFound(`No block ${id} in this account`)

/** A page can hold more blocks than a list page shows; the tool answers them all. */
const ALL_BLOCKS = { limit: 1000, offset: 0 }

export const pageTools = [
  accountTool({
    name: 'list_pages',
    title: 'List pages of a site',
    description: 'The pages of a site by locale and path.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ site_id: Id('The site id (site_…)'), ...PagingArguments }, strict),
    output: ListOf(PageSchema),
    run: async (args, call) => {
      const site = await ownSite(call, args.site_id)
      const paging = pageOf(args)
      const { items, total } = await listSitePages(call.db, site.id, paging)
      return listOf(items.map(pageView), total, paging)
    },
  }),
  accountTool({
    name: 'get_page',
    title: 'Get a page with its blocks',
    description: 'One page with its blocks in order.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ page_id: Id('The page id (page_…)') }, strict),
    output: Type.Object({ ...PageSchema.properties, blocks: Type.Array(BlockSchema) }, strict),
    run: async (args, call) => {
      const page = await ownPage(call, args.page_id)
      const { items } = await listPageBlocks(call.db, page.id, ALL_BLOCKS)
      return { ...pageView(page), blocks: items.map(blockView) }
    },
  }),
  accountTool({
    name: 'create_page',
    title: 'Create a page',
    description:
      "Adds a page to a site at a path, in one of the site's locales (default: the site's default locale). A path is unique per site and locale; without one it is made from the title (transliterated, unique).",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      {
        site_id: Id('The site id (site_…)'),
        path: Type.Optional(PagePath),
        locale: Type.Optional(Locale),
        title: Title,
        description: Type.Optional(Description),
      },
      strict,
    ),
    output: PageSchema,
    run: async ({ site_id, ...input }, call) => pageView(await createPage(call.db, await ownSite(call, site_id), input)),
  }),
  accountTool({
    name: 'update_page',
    title: 'Change a page',
    description: "Changes a page's path, locale, title or description.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      {
        page_id: Id('The page id (page_…)'),
        path: Type.Optional(PagePath),
        locale: Type.Optional(Locale),
        title: Type.Optional(Title),
        description: Type.Optional(Description),
      },
      strict,
    ),
    output: PageSchema,
    run: async ({ page_id, ...patch }, call) => {
      const page = await updatePage(call.db, call.accountId, page_id, patch)
      if (!page) throw pageNotFound(page_id)
      return pageView(page)
    },
  }),
  accountTool({
    name: 'delete_page',
    title: 'Delete a page',
    description: 'Deletes a page and its blocks. The live site keeps it until the next publish.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ page_id: Id('The page id (page_…)') }, strict),
    output: Deleted,
    run: async (args, call) => {
      if (!(await deletePage(call.db, call.accountId, args.page_id))) throw pageNotFound(args.page_id)
      return { id: args.page_id, deleted: true as const }
    },
  }),
  accountTool({
    name: 'add_block',
    title: 'Add a block to a page',
    description:
      'Adds a content block at a position (the blocks from there move down) or at the end. The content is checked against the block type.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      { page_id: Id('The page id (page_…)'), type: BlockType, content: BlockContent, position: Type.Optional(Position) },
      strict,
    ),
    output: BlockSchema,
    run: async ({ page_id, ...block }, call) => blockView(await insertBlock(call.db, (await ownPage(call, page_id)).id, block)),
  }),
  accountTool({
    name: 'update_block',
    title: 'Change a block',
    description: "Changes a block's content (a new type needs its content too) and/or moves it to another position.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object(
      {
        block_id: Id('The block id (blk_…)'),
        type: Type.Optional(BlockType),
        content: Type.Optional(BlockContent),
        position: Type.Optional(Position),
      },
      strict,
    ),
    output: BlockSchema,
    run: async ({ block_id, ...patch }, call) => {
      const block = await updateBlock(call.db, call.accountId, block_id, patch)
      if (!block) throw blockNotFound(block_id)
      return blockView(block)
    },
  }),
  accountTool({
    name: 'delete_block',
    title: 'Delete a block',
    description: 'Removes a block from its page; the blocks below move up.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ block_id: Id('The block id (blk_…)') }, strict),
    output: Deleted,
    run: async (args, call) => {
      if (!(await getAccountBlock(call.db, call.accountId, args.block_id)) || !(await deleteBlock(call.db, call.accountId, args.block_id)))
        throw blockNotFound(args.block_id)
      return { id: args.block_id, deleted: true as const }
    },
  }),
  accountTool({
    name: 'list_page_revisions',
    title: 'List the revisions of a page',
    description:
      'The history of a page, newest first: every change of the page or its blocks, with who made it, when, what (the operation) and the page with its blocks as it left it.',
    annotations: read,
    scope: 'mcp:read',
    access: 'read',
    input: Type.Object({ page_id: Id('The page id (page_…)'), ...PagingArguments }, strict),
    output: ListOf(Revision),
    run: async (args, call) => {
      const page = await ownPage(call, args.page_id)
      const paging = pageOf(args)
      const { items, total } = await listPageRevisions(call.db, page.id, paging)
      return listOf(items.map(revisionView), total, paging)
    },
  }),
  accountTool({
    name: 'restore_page_revision',
    title: 'Restore a revision of a page',
    description:
      "Brings a page's title, description and blocks back to one of its revisions, as a new change (the page's path and locale stay). Publish the site to make it live.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'mcp:tools',
    access: 'write',
    input: Type.Object({ page_id: Id('The page id (page_…)'), revision_id: Id('The revision id (rev_…)') }, strict),
    output: PageSchema,
    run: async (args, call) => {
      const page = await ownPage(call, args.page_id)
      const restored = await restorePageRevision(call.db, call.accountId, page.id, args.revision_id)
      if (!restored) throw revisionNotFound(args.revision_id)
      return pageView(restored.page)
    },
  }),
]
