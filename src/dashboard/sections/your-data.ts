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
import { actionForm, dataTable } from '../layout.ts'
import type { MessageKey, Translator } from '../../domain/i18n/translator.ts'

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
  const t = request.t
  if (request.method !== 'GET') reply.code(409)
  return reply.page(
    t.t('data.suspended.title'),
    'accounts',
    html`<p>${t.rich('data.suspended.text', { day: t.dateTime(pending.eraseAfter) }, { strong: (words) => html`<strong>${words}</strong>` })}</p>
${
  owner
    ? html`<p>${t.t('data.suspended.restoreText')}</p>
${actionForm('/app/your-data/restore', reply.formToken(), t.t('data.suspended.restore'), { inline: false })}`
    : html`<p>${t.t('data.suspended.ownerOnly')}</p>`
}
<p><a href="/app/accounts">${t.t('accounts.title')}</a></p>`,
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

function deleteSection(t: Translator, csrf: string, name: string, typed = '', error?: string): SafeHtml {
  const confirm = { name: 'confirm', label: t.t('data.delete.name'), maxLength: 320 }
  return html`<section aria-labelledby="delete-h"><h2 id="delete-h">${t.t('data.delete.title')}</h2>
<p>${t.t('data.delete.text')}</p>
<form method="post" action="/app/your-data/delete" class="card" novalidate><input type="hidden" name="_csrf" value="${csrf}">
<p>${t.rich('data.delete.confirm', { name }, { strong: (words) => html`<strong>${words}</strong>` })}</p>
${field({ values: { confirm: typed }, errors: error ? { confirm: error } : {} }, confirm)}
<button type="submit" class="danger">${t.t('data.delete.title')}</button></form></section>`
}

const NOTICES: Record<string, MessageKey> = {
  restored: 'data.restored',
  'export-requested': 'data.exportRequested',
}

/** Bytes in words people read, with the language's decimal sign. */
function sizeOf(t: Translator, bytes: number | null): string {
  if (bytes === null) return ''
  return bytes < 1_000_000
    ? t.t('data.size.kb', { n: Math.max(1, Math.round(bytes / 1000)) })
    : t.t('data.size.mb', { n: Math.round(bytes / 100_000) / 10 })
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
      const t = request.t
      const done = request.query.done ?? ''
      const notice = Object.hasOwn(NOTICES, done) ? t.t(NOTICES[done]!) : undefined
      return reply.page(
        t.t('data.title'),
        'accounts',
        html`<section aria-labelledby="export-h"><h2 id="export-h">${t.t('data.export.title')}</h2>
<p>${t.t('data.export.text')}</p>
${actionForm('/app/your-data/exports', csrf, t.t('data.export.title'), { inline: false })}
${
  exports.length === 0
    ? ''
    : dataTable(
        t.t('data.exports'),
        [t.t('data.col.asked'), t.t('data.col.status'), t.t('data.col.size'), t.t('data.col.until'), ''],
        exports.map((e) => [
          t.dateTime(e.created_at),
          t.t(`data.status.${e.status}`),
          sizeOf(t, e.size_bytes),
          e.status === 'ready' && e.expires_at ? t.dateTime(e.expires_at) : '',
          e.status === 'ready' ? html`<a href="${downloadLink(app.keyring, '', e)}" download>${t.t('data.download')}</a>` : '',
        ]),
      )
}
</section>
${mayChange(request.person) ? deleteSection(t, csrf, await accountName(app.db, app.keyring, accountId)) : ''}`,
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
        const t = request.t
        return reply.page(
          t.t('data.title'),
          'accounts',
          deleteSection(t, reply.formToken(), name, typed, t.t('data.delete.wrongName', { name })),
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
      const gone = () => new errors.notFound(request.t.t('data.download.gone'))
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
