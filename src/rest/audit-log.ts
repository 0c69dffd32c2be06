import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { listAuditRecords, type AuditRow } from '../domain/accounts/audit-log.ts'
import { envelope, ListEnvelope, listQuery, pageOf } from './http.ts'

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()])

const AuditItem = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    at: Type.String({ format: 'date-time' }),
    account_id: Type.String(),
    token_id: Nullable(Type.String({ description: 'The API token used, for calls made with one.' })),
    client_id: Nullable(Type.String({ description: 'The OAuth client, for calls made with an access token.' })),
    user_id: Nullable(
      Type.String({
        description:
          'The member who acted (usr_…): who made the API token, whose access token it was, or who claimed the agent. Null for a token the operator made.',
      }),
    ),
    operation: Type.String({ description: 'The operation name, e.g. sites.list.' }),
    method: Type.String(),
    path: Type.String({ description: 'The route template, e.g. /v1/sites/:id.' }),
    status: Type.Integer(),
    request_id: Type.String(),
    ip: Type.String(),
  },
  { additionalProperties: false, description: 'One recorded call' },
)

const AuditQuery = listQuery({
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Calls at or after this time.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Calls before this time.' })),
  token_id: Type.Optional(Type.String({ maxLength: 100 })),
  user_id: Type.Optional(Type.String({ maxLength: 100, description: 'Calls of this member.' })),
  operation: Type.Optional(Type.String({ maxLength: 100 })),
})

function toItem(row: AuditRow) {
  return { ...row, at: row.at.toISOString() }
}

/** GET /v1/audit-log: the account's calls of the last 90 days, newest first; what every member did, so for owners only. */
export default async function auditLogRoutes(app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/audit-log',
    {
      config: { operation: 'audit_log.list', scope: 'manage:tokens', access: 'read', role: 'owner' },
      schema: {
        summary: 'List recorded API calls',
        tags: ['audit log'],
        querystring: AuditQuery,
        response: { 200: ListEnvelope(AuditItem, 'Recorded calls, newest first') },
      },
    },
    async (request) => {
      const { since, until, token_id: tokenId, user_id: userId, operation } = request.query
      const { limit, offset, page, perPage } = pageOf(request.query)
      const filter = {
        ...(since ? { since: new Date(since) } : {}),
        ...(until ? { until: new Date(until) } : {}),
        ...(tokenId ? { tokenId } : {}),
        ...(userId ? { userId } : {}),
        ...(operation ? { operation } : {}),
      }
      const { rows, total } = await listAuditRecords(app.db, request.principal.accountId, filter, { limit, offset })
      return envelope(rows.map(toItem), total, page, perPage)
    },
  )
}
