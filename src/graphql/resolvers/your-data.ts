import { createRedirect, deleteRedirect, NewRedirect } from '../../domain/sites/redirects.ts'
import { restorePageRevision, revisionNotFound } from '../../domain/sites/revisions.ts'
import { downloadLink, exportView, getAccountExport, requestExport, type AccountExport } from '../../domain/your-data/exports.ts'
import { auditedChange } from '../audited-change.ts'
import { ACCESS, allowed, type GraphqlContext } from '../context.ts'
import { checker, plausibleId } from '../inputs.ts'
import { pageNode, redirectNode } from '../views.ts'
import { found, notFound, orNotFound } from './query.ts'
import { ownSite } from './sites.ts'
import type { Input } from './writes.ts'

/**
 * Your data (DESIGN.md 19) on GraphQL: a page's history and its restore, a site's redirects, and
 * the account's export, through the same domain functions as /v1 (the lists `Page.revisions` and
 * `Site.redirects` are read by loaders.ts). Deleting the account stays in
 * the dashboard: it asks for the account's name from a signed-in owner, and while the account is
 * suspended its tokens answer nothing, so no API client could restore it.
 */

const newRedirect = checker(NewRedirect)

function exportNode(row: AccountExport, context: GraphqlContext) {
  const { keyring, config } = context.app
  const view = exportView(row, (ready) => downloadLink(keyring, config.BASE_URL, ready))
  return {
    id: view.id,
    status: view.status,
    createdAt: view.created_at,
    sizeBytes: view.size_bytes ?? null,
    downloadUrl: view.download_url ?? null,
    expiresAt: view.expires_at ?? null,
  }
}

/** The export of /v1/account/exports: the owner's, scope manage:tokens (the zip holds the audit log). */
const EXPORTS = { scope: 'manage:tokens', access: 'read', role: 'owner' } as const

export const yourDataResolvers = {
  Query: {
    async accountExport(_root: unknown, args: { id: string }, context: GraphqlContext) {
      const principal = allowed(context, EXPORTS)
      return exportNode(await found(args.id, 'Export', () => getAccountExport(context.app.db, principal.accountId, args.id)), context)
    },
  },
  Mutation: {
    async restorePageRevision(_root: unknown, { input }: Input<{ pageId: string; revisionId: string }>, context: GraphqlContext) {
      const principal = allowed(context, ACCESS.writePages)
      if (!plausibleId(input.pageId)) throw notFound('Page')
      if (!plausibleId(input.revisionId)) throw revisionNotFound(input.revisionId)
      const restored = await auditedChange(context, async (trx) => {
        const done = await restorePageRevision(trx, principal.accountId, input.pageId, input.revisionId)
        if (!done) throw revisionNotFound(input.revisionId)
        return done.page
      })
      return pageNode(restored)
    },

    async addRedirect(_root: unknown, { input }: Input<{ siteId: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const body = newRedirect(input)
      const site = await ownSite(context, input.siteId)
      return redirectNode(await auditedChange(context, (trx) => createRedirect(trx, site.id, body)))
    },

    async deleteRedirect(_root: unknown, { input }: Input<{ siteId: string; id: string }>, context: GraphqlContext) {
      allowed(context, ACCESS.writePages)
      const site = await ownSite(context, input.siteId)
      if (!plausibleId(input.id)) throw notFound('Redirect')
      await auditedChange(context, async (trx) => orNotFound(await deleteRedirect(trx, site.id, input.id), 'Redirect'))
      return input.id
    },

    async requestAccountExport(_root: unknown, _args: unknown, context: GraphqlContext) {
      const principal = allowed(context, EXPORTS)
      return exportNode(await auditedChange(context, (trx) => requestExport(trx, principal.accountId, principal.userId ?? null)), context)
    },
  },
}
