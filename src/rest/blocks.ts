import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import {
  blockView,
  changeBlockContent,
  deleteBlock,
  getAccountBlock,
  insertBlock,
  listPageBlocks,
  updateBlock,
  type Block as BlockRow,
  type BlockPatch as BlockChange,
} from '../domain/sites/blocks.ts'
import { answerChange, changeInOneStatement, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, pageOf, sendItem } from './http.ts'
import { requirePage } from './pages.ts'
import {
  Block,
  BlockId,
  BlockPatch,
  BlockPatchDocumented,
  NewBlock,
  NewBlockDocumented,
  NewBlockSchemas,
  PageId,
  params,
} from './schemas/content.ts'
import { orNotFound } from './sites.ts'

const tags = ['blocks']
const ifMatch = (request: FastifyRequest) => (current: BlockRow) => assertIfMatch(request, etagOf(blockView(current)))

/**
 * A change of content in one statement with its audit record (`changeBlockContent`), when the
 * patch allows it: with If-Match, the block is read first and a tag that does not name it is 412
 * at once; one that does is held in the statement, which changes the block only in that version.
 * Undefined when the statement changed nothing: `updateBlock` then decides under its locks.
 */
async function changeContent(
  request: FastifyRequest,
  accountId: string,
  blockId: string,
  patch: BlockChange,
): Promise<BlockRow | undefined> {
  if (patch.position !== undefined || patch.content === undefined) return undefined
  let expected: BlockRow | undefined
  if (request.headers['if-match'] !== undefined) {
    expected = await getAccountBlock(request.server.db, accountId, blockId)
    if (!expected) return undefined
    ifMatch(request)(expected)
  }
  return changeInOneStatement(request, (alongside) =>
    changeBlockContent(request.server.db, accountId, blockId, patch, { expected, alongside }),
  )
}

/**
 * Blocks of a page (DESIGN.md 7): content checked against the block's type (400
 * invalid_block_content), positions kept dense 0..n-1 on insert, move (PATCH position) and delete.
 */
export default async function blockRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/pages/:page_id/blocks',
    {
      config: { operation: 'blocks.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List the blocks of a page in order',
        tags,
        params: params('page_id', PageId),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Block, 'Blocks by position') },
      },
    },
    async (request) => {
      const page = await requirePage(request, request.params.page_id)
      const paging = pageOf(request.query)
      const { items, total } = await listPageBlocks(app.db, page.id, paging)
      return envelope(items.map(blockView), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/pages/:page_id/blocks',
    {
      config: {
        operation: 'blocks.create',
        scope: 'write:pages',
        access: 'write',
        openapi: { body: NewBlockDocumented, schemas: NewBlockSchemas },
      },
      schema: {
        summary: 'Add a block at a position or at the end',
        tags,
        params: params('page_id', PageId),
        body: NewBlock,
        response: { 201: Block },
      },
    },
    async (request, reply) => {
      const page = await requirePage(request, request.params.page_id)
      return answerChange(
        request,
        reply,
        (trx) => insertBlock(trx, page.id, request.body),
        (block) => ({ status: 201, body: blockView(block), location: `/v1/blocks/${block.id}` }),
      )
    },
  )

  typed.get(
    '/blocks/:id',
    {
      config: { operation: 'blocks.get', scope: 'read:sites', access: 'read' },
      schema: { summary: 'Get a block', tags, params: params('id', BlockId), response: { 200: Block } },
    },
    async (request, reply) =>
      sendItem(reply, blockView(orNotFound(await getAccountBlock(app.db, request.principal.accountId, request.params.id), 'Block'))),
  )

  typed.patch(
    '/blocks/:id',
    {
      config: { operation: 'blocks.update', scope: 'write:pages', access: 'write', openapi: { body: BlockPatchDocumented } },
      schema: {
        summary: 'Change a block’s content or type, or move it',
        tags,
        params: params('id', BlockId),
        body: BlockPatch,
        response: { 200: Block },
      },
    },
    async (request, reply) => {
      const { accountId } = request.principal
      const block =
        (await changeContent(request, accountId, request.params.id, request.body)) ??
        (await auditedChange(request, async (trx) =>
          orNotFound(await updateBlock(trx, accountId, request.params.id, request.body, ifMatch(request)), 'Block'),
        ))
      return sendItem(reply, blockView(block))
    },
  )

  typed.delete(
    '/blocks/:id',
    {
      config: { operation: 'blocks.delete', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Delete a block; the ones after it move up',
        tags,
        params: params('id', BlockId),
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => orNotFound(await deleteBlock(trx, request.principal.accountId, request.params.id, ifMatch(request)), 'Block'),
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
