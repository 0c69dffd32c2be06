import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { roleOf } from '../../domain/accounts/members.ts'
import { accountChanged } from '../../domain/accounts/quota-tally.ts'
import {
  downloadLink,
  exportArchive,
  ExportId,
  listAccountExports,
  openDownloadLink,
  requestExport,
} from '../../domain/your-data/exports.ts'
import { accountName, requestAccountDeletion, restoreAccount, type DeletionState } from '../../domain/your-data/deletion.ts'
import { errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { mayChange } from '../permissions.ts'
import { Done, field, refused } from './editor/form.ts'
import { auditedChange } from '../audited-change.ts'
import { actionForm, dataTable, when } from '../layout.ts'

const STATUS = { pending: 'Being made', ready: 'Ready', failed: 'Failed', expired: 'Expired' } as const

/** What a suspended account's member may still open: the way back, and the way to another account or out. */
export const SUSPENDED_ROUTES = new Set([
  '/app/your-data/restore',
  '/app/accounts',
  '/app/accounts/switch',
  '/app/accounts/leave',
  '/app/copy.js',
])

/** Every page of an account waiting to be erased: when, and the way back for its owners. */
export async function suspendedPage(request: FastifyRequest, reply: FastifyReply, pending: DeletionState) {
  const owner = request.person.role === 'owner'
  if (request.method !== 'GET') reply.code(409)
  return reply.page(
    'This account is being deleted',
    'accounts',
    html`<p>This account and everything in it will be erased on <strong>${when(pending.eraseAfter)}</strong>. Until then its sites are offline and nothing can be changed.</p>
${
  owner
    ? html`<p>Changed your mind? Restore the account and its sites come back online as they were.</p>
${actionForm('/app/your-data/restore', reply.formToken(), 'Restore this account', { inline: false })}`
    : html`<p>Only an owner of the account can restore it.</p>`
}
<p><a href="/app/accounts">Your accounts</a></p>`,
  )
}

/**
 * Once a deletion or a restore has committed: the account's credentials are read again at once
 * (a suspended account's tokens answer nothing), and its subscription stops renewing or renews
 * again. Stripe failing here is logged, not shown: the account's state is already changed, and the
 * erase cancels the subscription in any case.
 */
async function afterSuspension(app: FastifyInstance, request: FastifyRequest, accountId: string, suspended: boolean): Promise<void> {
  accountChanged(accountId)
  await app.billing.holdForDeletion(accountId, suspended).catch((error: unknown) => {
    request.log.warn({ err: error, accountId }, 'the subscription’s renewal could not be changed for the account’s deletion')
  })
}

const CONFIRM = { name: 'confirm', label: 'The account’s name', maxLength: 320 }

function deleteSection(csrf: string, name: string, typed = '', error?: string): SafeHtml {
  return html`<section aria-labelledby="delete-h"><h2 id="delete-h">Delete this account</h2>
<p>Deleting the account takes its sites offline at once. After 14 days everything is erased for good: sites, pages, published files, photos, leads, conversations, statistics, tokens and every member's access. Until then you can restore it by signing in.</p>
<form method="post" action="/app/your-data/delete" class="card" novalidate><input type="hidden" name="_csrf" value="${csrf}">
<p>To confirm, type the account's name: <strong>${name}</strong></p>
${field({ values: { confirm: typed }, errors: error ? { confirm: error } : {} }, CONFIRM)}
<button type="submit" class="danger">Delete this account</button></form></section>`
}

const NOTICES: Record<string, string> = {
  restored: 'Your account was restored. Its sites are back online as they were.',
  'export-requested': 'Your export is being made. We will email you the link when it is ready; it also shows here (reload the page).',
}

/** Bytes in words people read. */
function sizeOf(bytes: number | null): string {
  if (bytes === null) return ''
  return bytes < 1_000_000 ? `${Math.max(1, Math.round(bytes / 1000))} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`
}

/**
 * "Your data" (DESIGN.md 19), for an account's owners: export everything as one zip (made in the
 * background, linked by mail and here, kept 7 days) and download it through its signed link.
 */
export default async function yourDataSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/your-data',
    { config: { operation: 'dashboard.your_data.get' }, schema: { hide: true, querystring: Done } },
    async (request, reply) => {
      const { accountId } = request.person
      const exports = await listAccountExports(app.db, accountId)
      const csrf = reply.formToken()
      const notice = NOTICES[request.query.done ?? '']
      return reply.page(
        'Your data',
        'accounts',
        html`<section aria-labelledby="export-h"><h2 id="export-h">Export everything</h2>
<p>One zip file with all your account holds: each site's pages and blocks, your published site ready to put on any web host, your leads and conversations (as spreadsheets too), the members and the audit log. It is kept for 7 days.</p>
${actionForm('/app/your-data/exports', csrf, 'Export everything', { inline: false })}
${
  exports.length === 0
    ? ''
    : dataTable(
        'Your exports, newest first',
        ['Asked for', 'Status', 'Size', 'Download until', ''],
        exports.map((e) => [
          when(e.created_at),
          STATUS[e.status],
          sizeOf(e.size_bytes),
          e.status === 'ready' ? when(e.expires_at) : '',
          e.status === 'ready' ? html`<a href="${downloadLink(app.keyring, '', e)}" download>Download the zip</a>` : '',
        ]),
      )
}
</section>
${mayChange(request.person) ? deleteSection(csrf, await accountName(app.db, app.keyring, accountId)) : ''}`,
        notice ? { notice } : {},
      )
    },
  )

  routes.post(
    '/your-data/exports',
    {
      config: { operation: 'dashboard.your_data.export' },
      schema: { hide: true, body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      await auditedChange(request, (trx) => requestExport(trx, request.person.accountId, request.person.userId))
      return reply.redirect('/app/your-data?done=export-requested', 303)
    },
  )

  routes.post(
    '/your-data/delete',
    {
      config: { operation: 'dashboard.your_data.delete_account' },
      schema: {
        hide: true,
        body: Type.Object(
          { _csrf: Type.Optional(Type.String({ maxLength: 200 })), confirm: Type.Optional(Type.String({ maxLength: 320 })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { accountId } = request.person
      const typed = request.body.confirm ?? ''
      try {
        await auditedChange(request, (trx) => requestAccountDeletion(trx, app.keyring, accountId, typed))
        await afterSuspension(app, request, accountId, true)
      } catch (error) {
        if (!(error instanceof errors.accountNameMismatch)) throw error
        await refused(request, reply, 422)
        const name = await accountName(app.db, app.keyring, accountId)
        return reply.page(
          'Your data',
          'accounts',
          deleteSection(reply.formToken(), name, typed, `This is not the account's name. Type ${name} to delete the account.`),
        )
      }
      return reply.redirect('/app', 303)
    },
  )

  routes.post(
    '/your-data/restore',
    {
      config: { operation: 'dashboard.your_data.restore_account' },
      schema: { hide: true, body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      if (await auditedChange(request, (trx) => restoreAccount(trx, request.person.accountId)))
        await afterSuspension(app, request, request.person.accountId, false)
      return reply.redirect('/app/your-data?done=restored', 303)
    },
  )

  // The signed link of the mail and of the page above: it names one export of one account, and
  // only an owner of that account, signed in, gets the file.
  routes.get(
    '/exports/:id/download',
    {
      config: { operation: 'dashboard.your_data.download' },
      schema: {
        hide: true,
        params: Type.Object({ id: ExportId }),
        querystring: Type.Object({ t: Type.String({ minLength: 1, maxLength: 2000 }) }),
      },
    },
    async (request, reply) => {
      const named = openDownloadLink(app.keyring, request.params.id, request.query.t)
      const gone = () =>
        new errors.notFound(
          'This download link does not work: it expired, or it is not for an account you own. Ask for a new export under Your data.',
        )
      if (!named || (await roleOf(app.db, named.accountId, request.person.userId)) !== 'owner') throw gone()
      const archive = await exportArchive(app.db, named.accountId, request.params.id)
      if (!archive) throw gone()
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="export-${request.params.id}.zip"`)
        .send(Buffer.from(archive))
    },
  )
}
