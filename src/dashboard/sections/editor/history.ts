import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { listMembers } from '../../../domain/accounts/members.ts'
import { listPageRevisions, restorePageRevision, revisionNotFound, type PageRevision } from '../../../domain/sites/revisions.ts'
import { html } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import type { MessageKey } from '../../../domain/i18n/translator.ts'
import { mayChange } from '../../permissions.ts'
import { crumbs, ownPage, PageParams } from './context.ts'

const PER_PAGE = 50
const RestoreParams = Type.Object({ id: PageParams.properties.id, revision_id: Type.String({ pattern: '^rev_[A-Za-z0-9_-]{8,64}$' }) })

/** What a change did, in plain words, by the operation of its audit record (any interface). */
function whatOf(operation: string | null): MessageKey | string {
  const op = (operation ?? '').replace(/^dashboard\./, '')
  if (/revisions?\.restore|restore_page_revision|restorePageRevision/i.test(op)) return 'editor.history.restored'
  if (/^pages\.(create|new)|create_page|createPage/.test(op)) return 'editor.history.created'
  if (/^pages\.|update_page|updatePage/.test(op)) return 'editor.history.pageChanged'
  if (/^blocks\.(create|new)|add_block|addBlock/.test(op)) return 'editor.history.blockAdded'
  if (/^blocks\.move/.test(op)) return 'editor.history.blockMoved'
  if (/^blocks\.delete|delete_block|deleteBlock/.test(op)) return 'editor.history.blockDeleted'
  if (/^blocks\.|update_block|updateBlock/.test(op)) return 'editor.history.blockChanged'
  return op ? op : 'editor.history.changed'
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
      const { t } = request
      const emails = new Map(members.map((m) => [m.id, m.email]))
      const who = (r: PageRevision) =>
        r.user_id
          ? (emails.get(r.user_id) ?? t.t('editor.history.formerMember'))
          : r.token_id
            ? html`${t.t('editor.history.token')} <code>${r.token_id}</code>`
            : t.t('editor.history.service')
      // An operation this page does not name (a future one) is shown as it is recorded.
      const what = (r: PageRevision) => {
        const found = whatOf(r.operation)
        return found.startsWith('editor.history.') ? t.t(found as MessageKey) : found
      }
      const may = mayChange(request.person)
      const csrf = reply.formToken()
      const restored = (request.query as { done?: string }).done === 'restored'
      return reply.page(
        t.t('editor.history.title', { title: page.title }),
        'sites',
        html`${crumbs(t, [[site.name, `/app/sites/${site.id}`], [page.title, `/app/pages/${page.id}`], [t.t('editor.history.crumb')]])}
<p>${t.t('editor.history.intro', { may: may ? 'yes' : 'no' })}</p>
${dataTable(
  t.t('editor.history.table'),
  [
    t.t('editor.history.col.when'),
    t.t('editor.history.col.who'),
    t.t('editor.history.col.what'),
    t.t('editor.page.title'),
    t.t('editor.page.blocks'),
    '',
  ],
  items.map((r, i) => [
    t.dateTime(r.created_at),
    who(r),
    what(r),
    r.snapshot.title,
    r.snapshot.blocks.length,
    at === 1 && i === 0
      ? t.t('editor.history.current')
      : may
        ? actionForm(`/app/pages/${page.id}/revisions/${r.id}/restore`, csrf, t.t('editor.history.restore'), { kind: 'secondary' })
        : '',
  ]),
)}
${at * PER_PAGE < total ? html`<p><a href="/app/pages/${page.id}/history?page=${at + 1}">${t.t('editor.history.older')}</a></p>` : ''}`,
        restored ? { notice: t.t('editor.history.restoredNotice') } : {},
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
