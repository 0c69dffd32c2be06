import type { FastifyRequest } from 'fastify'
import type { AuditEntry } from '../frame/index.ts'
import { requestOf, type GraphqlContext } from './context.ts'

/**
 * The audit log (DESIGN.md 13): one record per GraphQL request, operation
 * `graphql.<operationName|anonymous>`. A request that changes something writes its record with
 * its first change that commits, in the same transaction; any other identified request is
 * recorded in the frame's next batch when it has been answered.
 */

const operations = new WeakMap<FastifyRequest, string>()
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/

/** Remembers the name of the operation the request runs (as the document names it). */
export function rememberOperation(request: FastifyRequest, name: string | undefined): void {
  operations.set(request, operationName(name))
}

/** An operation's name as the audit log keeps it. */
export function operationName(name: string | undefined): string {
  return name && OPERATION_NAME.test(name) ? name : 'anonymous'
}

/** The audit operation of a request; one refused before its document was read goes by the name it gave. */
export function operationOf(request: FastifyRequest): string {
  const known = operations.get(request)
  if (known) return `graphql.${known}`
  const given =
    (request.body as { operationName?: unknown } | undefined)?.operationName ??
    (request.query as { operationName?: unknown } | undefined)?.operationName
  return `graphql.${typeof given === 'string' && OPERATION_NAME.test(given) ? given : 'anonymous'}`
}

/** The record of a request (or of one subscription on a WebSocket, whose operation is named by its own document). */
export function graphqlAuditEntry(
  request: FastifyRequest,
  context: Pick<GraphqlContext, 'principal'> & { operation?: string },
  status: number,
): AuditEntry {
  const { principal } = context
  return {
    accountId: principal.accountId,
    tokenId: principal.tokenId,
    clientId: principal.clientId,
    userId: principal.userId,
    operation: context.operation === undefined ? operationOf(request) : `graphql.${context.operation}`,
    method: request.method,
    path: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
    status,
    requestId: request.id,
    ip: request.ip,
  }
}
