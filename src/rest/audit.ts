import type { FastifyInstance, FastifyRequest, onResponseAsyncHookHandler } from 'fastify'
import { AuditBatcher, auditRecord, insertAuditRecords } from '../domain/audit-log.ts'
import type { Db } from '../infra/db.ts'
import type { RestRouteConfig } from './auth.ts'

const recorded = new WeakSet<FastifyRequest>()

function entryOf(request: FastifyRequest, status: number) {
  const config = request.routeOptions.config as RestRouteConfig
  return auditRecord({
    accountId: request.principal.accountId,
    tokenId: request.principal.tokenId,
    clientId: request.principal.clientId,
    operation: config.operation ?? 'unknown',
    method: request.method,
    path: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
    status,
    requestId: request.id,
    ip: request.ip,
  })
}

/**
 * Runs a change in one transaction together with its audit record, so a crash after the commit
 * cannot lose the record (DESIGN.md 7). `status` is the answer the route gives on success.
 * The frame then writes no second record for the call; if the change fails, nothing is
 * committed and the frame records the failure like any other answer.
 *
 *   const site = await withAudit(request, (trx) => createSite(trx, ...), 201)
 */
export async function withAudit<T>(request: FastifyRequest, work: (trx: Db) => Promise<T>, status = 200): Promise<T> {
  const result = await request.server.db.transaction().execute(async (trx) => {
    const value = await work(trx)
    await insertAuditRecords(trx, [entryOf(request, status)])
    return value
  })
  recorded.add(request)
  return result
}

/**
 * Every other answer to an identified account (reads, refusals, failed changes) is recorded in
 * batches off the request path; what is pending is written when the app closes.
 */
export function auditHook(app: FastifyInstance): onResponseAsyncHookHandler {
  const batcher = new AuditBatcher(app.db, app.log as never)
  app.addHook('onClose', async () => batcher.flush())
  return async function auditResponse(request, reply) {
    if (!request.principal || recorded.has(request)) return
    batcher.add(entryOf(request, reply.statusCode))
  }
}
