import type { FastifyRequest } from 'fastify'
import { auditEntry } from '../frame/index.ts'
import type { Db } from '../infra/db.ts'

/**
 * A dashboard action with its audit record in one transaction, as on /v1: recorded under the
 * route's operation (`dashboard.…`), with the person's account and no token. `status` is the
 * answer on success; work that cannot be done throws, so nothing commits and the error handler
 * records the refusal with its real status.
 */
export async function auditedChange<T>(request: FastifyRequest, work: (trx: Db) => Promise<T>, status = 303): Promise<T> {
  return request.server.frame.audit.auditedChange(request, request.person, status, work)
}

/** An action refused or failed (404, 409, an expired form, …) is recorded too, with its answer, before the page is sent. */
export async function recordRefusal(request: FastifyRequest, status: number): Promise<void> {
  const { frame } = request.server
  if (frame.audit.isWritten(request)) return
  try {
    await frame.audit.recordNow(request.server.db, auditEntry(request, request.person, status))
  } catch (error) {
    request.log.error({ err: error }, 'audit record of a refused dashboard action not written')
  }
}
