import { sql, type RawBuilder, type Selectable } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { BlocksTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import { missingMedia, notInLibrary } from '../media/media.ts'
import {
  BLOCK_TYPES,
  blockMediaIds,
  checkBlockContent,
  contentFits,
  isBlockType,
  type BlockType,
  type TypedBlock,
} from './block-content.ts'
import { executePrepared, preparedQuery } from '../../infra/prepared.ts'
import { withTransaction } from '../transaction.ts'
import type { Paging } from '../paging.ts'

export type Block = Selectable<BlocksTable>

/**
 * A page's blocks keep dense positions 0..n-1. Every change takes the page's row lock first, so
 * concurrent inserts, moves and deletes on one page run one after another; the unique index on
 * (page_id, position) is deferred to the commit, so a run of positions shifts in one statement.
 */

export interface BlockView {
  id: string
  page_id: string
  type: BlockType
  position: number
  content: TypedBlock['content']
}

export function blockView(block: Block): BlockView {
  return {
    id: block.id,
    page_id: block.page_id,
    type: block.type as BlockType,
    position: block.position,
    content: block.content as TypedBlock['content'],
  }
}

function accountBlocks(db: Db, accountId: string) {
  return db
    .selectFrom('blocks')
    .innerJoin('pages', 'pages.id', 'blocks.page_id')
    .innerJoin('sites', 'sites.id', 'pages.site_id')
    .selectAll('blocks')
    .where('sites.account_id', '=', accountId)
}

export async function listPageBlocks(db: Db, pageId: string, page: Paging): Promise<{ items: Block[]; total: number }> {
  const [items, count] = await Promise.all([
    db.selectFrom('blocks').selectAll().where('page_id', '=', pageId).orderBy('position').limit(page.limit).offset(page.offset).execute(),
    db
      .selectFrom('blocks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('page_id', '=', pageId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

const accountBlock = preparedQuery((db: Db, accountId: string, blockId: string) =>
  accountBlocks(db, accountId).where('blocks.id', '=', blockId),
)

export async function getAccountBlock(db: Db, accountId: string, blockId: string): Promise<Block | undefined> {
  const [block] = await accountBlock(db, accountId, blockId)
  return block
}

/**
 * The account's block, read as it stands once its page's row lock and its own are held, in one
 * statement; undefined when the account has no such block. The page is locked first (the order
 * of `for update of`), as every change of a page's blocks locks it first.
 */
async function lockAccountBlock(trx: Db, accountId: string, blockId: string): Promise<Block | undefined> {
  return accountBlocks(trx, accountId).where('blocks.id', '=', blockId).forUpdate(['pages', 'blocks']).executeTakeFirst()
}

async function countBlocks(trx: Db, pageId: string): Promise<number> {
  const count = await trx
    .selectFrom('blocks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('page_id', '=', pageId)
    .executeTakeFirstOrThrow()
  return Number(count.n)
}

async function lockPage(trx: Db, pageId: string): Promise<number> {
  await trx.selectFrom('pages').select('id').where('id', '=', pageId).forUpdate().executeTakeFirst()
  return countBlocks(trx, pageId)
}

/** Refuses a block that shows images the page's account does not hold in its media library. */
async function checkBlockMedia(db: Db, accountId: string | undefined, pageId: string, block: TypedBlock): Promise<void> {
  const ids = blockMediaIds(block)
  if (ids.length === 0) return
  const owner =
    accountId ??
    (
      await db
        .selectFrom('pages')
        .innerJoin('sites', 'sites.id', 'pages.site_id')
        .select('sites.account_id')
        .where('pages.id', '=', pageId)
        .executeTakeFirst()
    )?.account_id
  if (!owner) throw new errors.invalidBlockContent('The page’s site belongs to no account, so it has no media library')
  const missing = await missingMedia(db, owner, ids)
  if (missing.length) throw new errors.invalidBlockContent(notInLibrary(missing))
}

function outOfRange(position: number, last: number) {
  return new errors.positionOutOfRange(`The position ${position} is beyond the end of the page (0 to ${last})`)
}

/** Adds a block at `position` (the ones from there move down) or at the end. */
export async function insertBlock(
  db: Db,
  pageId: string,
  block: { type: string; content: unknown; position?: number | undefined },
): Promise<Block> {
  if (!isBlockType(block.type)) throw new errors.validationFailed(`The field 'type' has an unsupported value`)
  const typed = checkBlockContent(block.type, block.content)
  await checkBlockMedia(db, undefined, pageId, typed)
  return withTransaction(db, async (trx) => {
    const count = await lockPage(trx, pageId)
    const position = block.position ?? count
    if (position > count) throw outOfRange(position, count)
    await trx
      .updateTable('blocks')
      .set({ position: sql`position + 1` })
      .where('page_id', '=', pageId)
      .where('position', '>=', position)
      .execute()
    return trx
      .insertInto('blocks')
      .values({ id: newId('blk'), page_id: pageId, type: typed.type, position, content: JSON.stringify(typed.content) })
      .returningAll()
      .executeTakeFirstOrThrow()
  })
}

export interface BlockPatch {
  type?: string
  content?: unknown
  position?: number
}

/**
 * Changes a block's content (checked against its type, or a new type given with new content)
 * and/or moves it, shifting the blocks in between. `check` sees the locked current version.
 */
export async function updateBlock(
  db: Db,
  accountId: string,
  blockId: string,
  patch: BlockPatch,
  check: (current: Block) => void = () => {},
): Promise<Block | undefined> {
  return withTransaction(db, async (trx) => {
    const current = await lockAccountBlock(trx, accountId, blockId)
    if (!current) return undefined
    check(current)
    const type = patch.type ?? current.type
    if (patch.type !== undefined && patch.content === undefined)
      throw new errors.invalidBlockContent('A new type needs its content in the same request')
    if (!isBlockType(type)) throw new errors.validationFailed(`The field 'type' has an unsupported value`)
    const typed = patch.content === undefined ? undefined : checkBlockContent(type, patch.content)
    if (typed) await checkBlockMedia(trx, accountId, current.page_id, typed)
    const content = typed ? typed.content : current.content
    const to = patch.position ?? current.position
    // Only a move can leave the page's range: the block's own position is within it.
    if (patch.position !== undefined) {
      const count = await countBlocks(trx, current.page_id)
      if (to > count - 1) throw outOfRange(to, count - 1)
    }
    const from = current.position
    if (to < from)
      await trx
        .updateTable('blocks')
        .set({ position: sql`position + 1` })
        .where('page_id', '=', current.page_id)
        .where('position', '>=', to)
        .where('position', '<', from)
        .execute()
    if (to > from)
      await trx
        .updateTable('blocks')
        .set({ position: sql`position - 1` })
        .where('page_id', '=', current.page_id)
        .where('position', '>', from)
        .where('position', '<=', to)
        .execute()
    return trx
      .updateTable('blocks')
      .set({ type, content: JSON.stringify(content), position: to, updated_at: new Date() })
      .where('id', '=', blockId)
      .returningAll()
      .executeTakeFirstOrThrow()
  })
}

/** A statement run in the WITH clause of a change, seeing the changed rows as the CTE named `changed` (its audit record). */
export type Alongside = (changed: string) => RawBuilder<unknown>

/**
 * A change of a block's content (with its type, when given) made in one statement, together
 * with `alongside`, committed on its own: no transaction stays open between round trips, so
 * concurrent changes of one block wait for each other one statement long. Moves (`position`)
 * and a type without content are not made here. The content is checked in advance against
 * every type it fits; the statement changes the block only when its type is one of them, the
 * account owns it and, with `expected`, it still is that version (the If-Match check, made by
 * the caller on `expected`, held in the WHERE clause). Content changes keep positions as they
 * are, so the page's row lock, which orders inserts, moves and deletes, is not taken: the
 * block's own lock orders this change with any other of the block.
 *
 * Answers undefined when the statement changed nothing (no such block in the account, content
 * of another type, a version other than `expected`): nothing was written, and `updateBlock`
 * decides, with the answer each case has.
 */
export async function changeBlockContent(
  db: Db,
  accountId: string,
  blockId: string,
  patch: BlockPatch,
  options: { expected?: Block | undefined; alongside?: Alongside } = {},
): Promise<Block | undefined> {
  if (patch.position !== undefined || patch.content === undefined) return undefined
  const types =
    patch.type === undefined
      ? BLOCK_TYPES.filter((type) => contentFits(type, patch.content))
      : isBlockType(patch.type) && contentFits(patch.type, patch.content)
        ? [patch.type]
        : []
  if (!types.length) return undefined
  for (const type of types) await checkBlockMedia(db, accountId, '', { type, content: patch.content } as TypedBlock)
  const { expected, alongside } = options
  const newType = patch.type ?? null
  const unchanged = expected
    ? sql`and blocks.page_id = ${expected.page_id}::text and blocks.type = ${expected.type}::text and blocks.position = ${expected.position}::int and blocks.content = ${JSON.stringify(expected.content)}::jsonb`
    : sql``
  const [changed] = await executePrepared(
    db,
    sql<Block>`with changed as (
      update blocks set type = coalesce(${newType}::text, blocks.type), content = ${JSON.stringify(patch.content)}::jsonb, updated_at = ${new Date()}::timestamptz
      from pages, sites
      where blocks.id = ${blockId}::text and pages.id = blocks.page_id and sites.id = pages.site_id and sites.account_id = ${accountId}::text
        and coalesce(${newType}::text, blocks.type) = any(${types}::text[]) ${unchanged}
      returning blocks.*
    )${alongside ? sql`, recorded as (${alongside('changed')})` : sql``}
    select * from changed`,
  )
  return changed
}

/** Deletes a block and closes the gap it leaves. */
export async function deleteBlock(
  db: Db,
  accountId: string,
  blockId: string,
  check: (current: Block) => void = () => {},
): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const gone = await lockAccountBlock(trx, accountId, blockId)
    if (!gone) return false
    check(gone)
    await trx.deleteFrom('blocks').where('id', '=', blockId).execute()
    await trx
      .updateTable('blocks')
      .set({ position: sql`position - 1` })
      .where('page_id', '=', gone.page_id)
      .where('position', '>', gone.position)
      .execute()
    return true
  })
}
