import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { downloadLink, Export, ExportId, ExportStarted, exportView, getAccountExport, requestExport } from '../domain/your-data/exports.ts'
import { answerChange } from './audited-change.ts'
import { orNotFound } from './sites.ts'

const tags = ['account']

/**
 * Exports of the account (DESIGN.md 19): asked for here, made by a job into one zip, kept 7 days
 * behind a signed link for this account only. The account's owner asks (scope manage:tokens, as
 * for the audit log, which the zip holds).
 */
export default async function exportRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  const link = (row: Parameters<typeof downloadLink>[2]) => downloadLink(app.keyring, app.config.BASE_URL, row)

  typed.post(
    '/account/exports',
    {
      config: { operation: 'account.exports.create', scope: 'manage:tokens', access: 'read', role: 'owner' },
      schema: {
        summary: 'Export everything the account holds as one zip, made in the background (poll the export, or wait for the mail)',
        tags,
        response: { 202: ExportStarted },
      },
    },
    async (request, reply) =>
      answerChange(
        request,
        reply,
        (trx) => requestExport(trx, request.principal.accountId, request.principal.userId ?? null),
        (row) => ({ status: 202, body: { id: row.id, status: row.status }, location: `/v1/account/exports/${row.id}` }),
      ),
  )

  typed.get(
    '/account/exports/:id',
    {
      config: { operation: 'account.exports.get', scope: 'manage:tokens', access: 'read', role: 'owner' },
      schema: {
        summary: 'Get an export: pending, ready with its download link, failed or expired',
        tags,
        params: Type.Object({ id: ExportId }),
        response: { 200: Export },
      },
    },
    async (request) =>
      exportView(orNotFound(await getAccountExport(app.db, request.principal.accountId, request.params.id), 'Export'), link),
  )
}
