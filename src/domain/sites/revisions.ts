import type { Selectable } from 'kysely'
import { Type } from 'typebox'
import type { Db } from '../../infra/db.ts'
import type { PageRevisionsTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import { withTransaction } from '../transaction.ts'
import type { BlockType, TypedBlock } from './block-content.ts'
import { BlockId, DateTime, Locale, nullable, PageId } from './views.ts'
import type { Page } from './pages.ts'
import type { Locale as LocaleName } from '../locales.ts'
import type { Paging } from '../paging.ts'

/**
 * Page history (DESIGN.md 19). Revisions are written by the database itself (the triggers of the
 * page-revisions migration), so every change of a page or its blocks, from any interface, keeps
 * one; here they are read and restored.
 */

export type PageRevision = Selectable<PageRevisionsTable>

export const RevisionId = Type.String({ pattern: '^rev_[A-Za-z0-9_-]{8,64}$', description: 'rev_…' })

export const Revision = Type.Object(
  {
    id: RevisionId,
    page_id: PageId,
    created_at: DateTime,
    operation: nullable(
      Type.String({ description: 'What was done: the operation of the change’s audit record (pages.update, blocks.create, …)' }),
    ),
    user_id: nullable(Type.String({ description: 'The member who made the change; null for an operator’s token' })),
    token_id: nullable(Type.String({ description: 'The API token used, if any' })),
    client_id: nullable(Type.String({ description: 'The OAuth client used, if any' })),
    path: Type.String(),
    locale: Locale,
    title: Type.String(),
    description: Type.String(),
    blocks: Type.Array(
      Type.Object(
        { id: BlockId, type: Type.String(), position: Type.Integer({ minimum: 0 }), content: Type.Unknown() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'The page and its blocks as one change left them' },
)

export interface RevisionView {
  id: string
  page_id: string
  created_at: string
  operation: string | null
  user_id: string | null
  token_id: string | null
  client_id: string | null
  path: string
  locale: LocaleName
  title: string
  description: string
  blocks: Array<{ id: string; type: BlockType; position: number; content: TypedBlock['content'] }>
}

export function revisionView(revision: PageRevision): RevisionView {
  const { snapshot } = revision
  return {
    id: revision.id,
    page_id: revision.page_id,
    created_at: new Date(revision.created_at).toISOString(),
    operation: revision.operation,
    user_id: revision.user_id,
    token_id: revision.token_id,
    client_id: revision.client_id,
    path: snapshot.path,
    locale: snapshot.locale,
    title: snapshot.title,
    description: snapshot.description,
    blocks: snapshot.blocks.map((b) => ({
      id: b.id,
      type: b.type as BlockType,
      position: b.position,
      content: b.content as TypedBlock['content'],
    })),
  }
}

/** A page's revisions, newest first. */
export async function listPageRevisions(db: Db, pageId: string, page: Paging): Promise<{ items: PageRevision[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('page_revisions')
      .selectAll()
      .where('page_id', '=', pageId)
      .orderBy('seq', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('page_revisions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('page_id', '=', pageId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

export async function getPageRevision(db: Db, pageId: string, revisionId: string): Promise<PageRevision | undefined> {
  return db.selectFrom('page_revisions').selectAll().where('page_id', '=', pageId).where('id', '=', revisionId).executeTakeFirst()
}

/**
 * Brings a page's title, description and blocks back to a revision, as a new change (its own
 * revision follows from the triggers). The path and locale stay as they are: links and redirects
 * follow the current path, and moving a page is a change of its own. Blocks keep the ids they had,
 * so links to a block (GET /v1/blocks/{id}) hold again. Undefined when the page or revision is not
 * the account's.
 */
export async function restorePageRevision(
  db: Db,
  accountId: string,
  pageId: string,
  revisionId: string,
): Promise<{ page: Page; revision: PageRevision } | undefined> {
  return withTransaction(db, async (trx) => {
    const page = await trx
      .selectFrom('pages')
      .innerJoin('sites', 'sites.id', 'pages.site_id')
      .selectAll('pages')
      .where('sites.account_id', '=', accountId)
      .where('pages.id', '=', pageId)
      .forUpdate(['pages'])
      .executeTakeFirst()
    if (!page) return undefined
    const revision = await getPageRevision(trx, pageId, revisionId)
    if (!revision) return undefined
    const { snapshot } = revision
    await trx.deleteFrom('blocks').where('page_id', '=', pageId).execute()
    for (const [position, block] of snapshot.blocks.entries()) {
      await trx
        .insertInto('blocks')
        .values({ id: block.id, page_id: pageId, type: block.type, position, content: JSON.stringify(block.content) })
        .execute()
    }
    const restored = await trx
      .updateTable('pages')
      .set({ title: snapshot.title, description: snapshot.description, updated_at: new Date() })
      .where('id', '=', pageId)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { page: restored, revision }
  })
}

export function revisionNotFound(revisionId: string) {
  return new errors.notFound(`Revision ${revisionId} not found`)
}
