import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { listPageRevisions, restorePageRevision, Revision, RevisionId, revisionNotFound, revisionView } from '../domain/sites/revisions.ts'
import { pageView } from '../domain/sites/views.ts'
import { Type } from 'typebox'
import { answerChange } from './audited-change.ts'
import { envelope, ListEnvelope, ListQuery, pageOf } from './http.ts'
import { requirePage } from './pages.ts'
import { Page, PageId } from './schemas/content.ts'

const tags = ['pages']

/** Page history (DESIGN.md 19): every change of a page or its blocks keeps a revision; restoring one is a new change. */
export default async function revisionRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/pages/:id/revisions',
    {
      config: { operation: 'pages.revisions.list', scope: 'read:sites', access: 'read' },
      schema: {
        summary: 'List a page’s revisions, newest first (who, when, what, and the page with its blocks as it was)',
        tags,
        params: Type.Object({ id: PageId }),
        querystring: ListQuery,
        response: { 200: ListEnvelope(Revision, 'Revisions, newest first') },
      },
    },
    async (request) => {
      const page = await requirePage(request, request.params.id)
      const paging = pageOf(request.query)
      const { items, total } = await listPageRevisions(app.db, page.id, paging)
      return envelope(items.map(revisionView), total, paging.page, paging.perPage)
    },
  )

  typed.post(
    '/pages/:id/revisions/:revision_id/restore',
    {
      config: { operation: 'pages.revisions.restore', scope: 'write:pages', access: 'write' },
      schema: {
        summary: 'Bring the page’s title, description and blocks back to a revision, as a new change (path and locale stay)',
        tags,
        params: Type.Object({ id: PageId, revision_id: RevisionId }),
        response: { 200: Page },
      },
    },
    async (request, reply) => {
      const { id, revision_id } = request.params
      const page = await requirePage(request, id)
      return answerChange(
        request,
        reply,
        async (trx) => {
          const restored = await restorePageRevision(trx, request.principal.accountId, page.id, revision_id)
          if (!restored) throw revisionNotFound(revision_id)
          return restored.page
        },
        (restored) => ({ status: 200, body: pageView(restored) }),
      )
    },
  )
}
