import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listMembers } from '../../../domain/accounts/members.ts'
import { listPageRevisions, restorePageRevision, revisionNotFound, type PageRevision } from '../../../domain/sites/revisions.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable, when } from '../../layout.ts'
import { mayChange } from '../../permissions.ts'
import { crumbs, ownPage, PageParams } from './context.ts'

const PER_PAGE = 50
const RestoreParams = Type.Object({ id: PageParams.properties.id, revision_id: Type.String({ pattern: '^rev_[A-Za-z0-9_-]{8,64}$' }) })

/** What a change did, in plain words, by the operation of its audit record (any interface). */
function whatOf(operation: string | null): string {
  const op = (operation ?? '').replace(/^dashboard\./, '')
  if (/revisions?\.restore|restore_page_revision|restorePageRevision/i.test(op)) return 'Restored an earlier version'
  if (/^pages\.(create|new)|create_page|createPage/.test(op)) return 'Created the page'
  if (/^pages\.|update_page|updatePage/.test(op)) return 'Changed the page details'
  if (/^blocks\.(create|new)|add_block|addBlock/.test(op)) return 'Added a block'
  if (/^blocks\.move/.test(op)) return 'Moved a block'
  if (/^blocks\.delete|delete_block|deleteBlock/.test(op)) return 'Deleted a block'
  if (/^blocks\.|update_block|updateBlock/.test(op)) return 'Changed a block'
  return op ? op : 'Changed'
}

/**
 * A page's history in the editor (DESIGN.md 19): every change of the page or its blocks, newest
 * first, with who made it, when and what; an editor restores one as a new change.
 */
export default async function historyScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/pages/:id/history',
    {
      config: { operation: 'dashboard.pages.history' },
      schema: {
        hide: true,
        params: PageParams,
        querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })) }),
      },
    },
    async (request, reply) => {
      const { accountId } = request.person
      const { site, page } = await ownPage(app, accountId, request.params.id)
      const at = request.query.page ?? 1
      const [{ items, total }, members] = await Promise.all([
        listPageRevisions(app.db, page.id, { limit: PER_PAGE, offset: (at - 1) * PER_PAGE }),
        listMembers(app.db, app.keyring, accountId),
      ])
      const emails = new Map(members.map((m) => [m.id, m.email]))
      const who = (r: PageRevision) =>
        r.user_id ? (emails.get(r.user_id) ?? 'A former member') : r.token_id ? html`API token <code>${r.token_id}</code>` : 'The service'
      const may = mayChange(request.person)
      const csrf = reply.formToken()
      const restored = (request.query as { done?: string }).done === 'restored'
      return reply.page(
        `History of “${page.title}”`,
        'sites',
        html`${crumbs([[site.name, `/app/sites/${site.id}`], [page.title, `/app/pages/${page.id}`], ['History']])}
<p>Every change of this page and its blocks is kept here, newest first.${may ? ' Restoring a version brings back its title, description and blocks as a new change; publish to show it on your site.' : ''}</p>
${dataTable(
  'Versions of this page, newest first',
  ['When', 'Who', 'What', 'Title', 'Blocks', ''],
  items.map((r, i) => [
    when(r.created_at),
    who(r),
    whatOf(r.operation),
    r.snapshot.title,
    r.snapshot.blocks.length,
    at === 1 && i === 0
      ? 'Current version'
      : may
        ? actionForm(`/app/pages/${page.id}/revisions/${r.id}/restore`, csrf, 'Restore this version', { kind: 'secondary' })
        : '',
  ]),
)}
${at * PER_PAGE < total ? html`<p><a href="/app/pages/${page.id}/history?page=${at + 1}">Older versions</a></p>` : ''}`,
        restored ? { notice: 'The version was restored. Publish to show it on your site.' } : {},
      )
    },
  )

  routes.post(
    '/pages/:id/revisions/:revision_id/restore',
    {
      config: { operation: 'dashboard.pages.revisions.restore' },
      schema: { hide: true, params: RestoreParams },
    },
    async (request, reply) => {
      const { accountId } = request.person
      const { page } = await ownPage(app, accountId, request.params.id)
      await auditedChange(request, async (trx) => {
        if (!(await restorePageRevision(trx, accountId, page.id, request.params.revision_id)))
          throw revisionNotFound(request.params.revision_id)
      })
      return reply.redirect(`/app/pages/${page.id}/history?done=restored`, 303)
    },
  )
}
