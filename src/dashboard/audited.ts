import type { FastifyRequest } from 'fastify'
import type { AuditEntry } from '../frame/index.ts'
import type { Db } from '../infra/db.ts'

function entryOf(request: FastifyRequest, status: number): AuditEntry {
  return {
    accountId: request.person.accountId,
    tokenId: null,
    clientId: null,
    operation: (request.routeOptions.config as { operation?: string }).operation ?? 'dashboard.unknown',
    method: request.method,
    path: request.routeOptions.url ?? '/app',
    status,
    requestId: request.id,
    ip: request.ip,
  }
}

/**
 * A dashboard action with its audit record in one transaction (the account frame's `withAudit`),
 * as on /v1: recorded under the route's operation (`dashboard.…`), with the person's account and
 * no token. `status` is the answer on success; work that cannot be done throws, so nothing
 * commits and the error handler records the refusal with its real status.
 */
export async function audited<T>(request: FastifyRequest, work: (trx: Db) => Promise<T>, status = 303): Promise<T> {
  const { frame } = request.server
  const value = await frame.withAudit(request.server.db, entryOf(request, status), work)
  frame.audit.written(request)
  return value
}

/** An action refused or failed (404, 409, an expired form, …) is recorded too, with its answer, before the page is sent. */
export async function recordRefusal(request: FastifyRequest, status: number): Promise<void> {
  const { frame } = request.server
  if (frame.audit.isWritten(request)) return
  try {
    await frame.audit.recordNow(request.server.db, entryOf(request, status))
  } catch (error) {
    request.log.error({ err: error }, 'audit record of a refused dashboard action not written')
  }
}
