import { inTransaction } from '../domain/transaction.ts'
import type { Db } from '../infra/db.ts'
import { graphqlAuditEntry } from './audit-log.ts'
import { requestOf, type GraphqlContext } from './context.ts'

/** Runs a mutation's change in one transaction, with the request's audit record if none was written yet. */
export async function auditedChange<T>(context: GraphqlContext, work: (trx: Db) => Promise<T>): Promise<T> {
  const { frame, db } = context.app
  const request = requestOf(context)
  if (frame.audit.isWritten(request)) return inTransaction(db, work)
  const value = await frame.auditedChange(db, graphqlAuditEntry(request, context, 200), work)
  frame.audit.written(request)
  return value
}
