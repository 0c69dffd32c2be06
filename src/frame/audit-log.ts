import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { RawBuilder } from 'kysely'
import { AuditBatcher, auditRecord, auditRecordAlongside, insertAuditRecords, type AuditEntry } from '../domain/accounts/audit-log.ts'
import { inTransaction } from '../domain/transaction.ts'
import type { Db } from '../infra/db.ts'
import type { Principal } from './principal.ts'

/** The audit record of a request's call: its route's operation (or the one given), the principal, the answer's status. */
export function auditEntry(request: FastifyRequest, principal: Principal, status: number, operation?: string): AuditEntry {
  return {
    accountId: principal.accountId,
    tokenId: principal.tokenId,
    clientId: principal.clientId,
    userId: principal.userId,
    operation: operation ?? (request.routeOptions.config as { operation?: string }).operation ?? 'unknown',
    method: request.method,
    path: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
    status,
    requestId: request.id,
    ip: request.ip,
  }
}

/**
 * Runs a change in one transaction together with its audit record, so a crash after the commit
 * cannot lose the record (DESIGN.md 7). The entry may depend on what the change gave (its status,
 * say); if the change throws, nothing is committed.
 *
 *   const site = await auditedChange(app.db, entry, (trx) => updateSite(trx, ...))
 */
export async function auditedChange<T>(
  db: Db,
  entry: AuditEntry | ((value: NoInfer<T>) => AuditEntry),
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    const value = await work(trx)
    await insertAuditRecords(trx, [auditRecord(typeof entry === 'function' ? entry(value) : entry)])
    return value
  })
}

/**
 * The audit records that need no transaction of their own (reads, refusals, failed changes),
 * written in batches off the request path, and which requests already had theirs written with
 * their change, so no call is recorded twice.
 */
export class AuditTrail {
  readonly #batcher: AuditBatcher
  readonly #written = new WeakSet<FastifyRequest>()

  constructor(db: Db, log: FastifyBaseLogger) {
    this.#batcher = new AuditBatcher(db, log as never)
  }

  /** Records a read, a refusal or a failed change, in the next batch. */
  record(entry: AuditEntry): void {
    this.#batcher.add(auditRecord(entry))
  }

  /** Records a refusal at once, before the answer leaves (a person may open the log next). */
  async recordNow(db: Db, entry: AuditEntry): Promise<void> {
    await insertAuditRecords(db, [auditRecord(entry)])
  }

  /**
   * The change a request makes, with its audit record in the same transaction (`auditedChange`);
   * `status` is the answer on success. The request is then not recorded a second time.
   */
  async auditedChange<T>(request: FastifyRequest, principal: Principal, status: number, work: (trx: Db) => Promise<T>): Promise<T> {
    const value = await auditedChange(request.server.db, auditEntry(request, principal, status), work)
    this.written(request)
    return value
  }

  /**
   * A change a request makes in one statement with its audit record: `work` gets the record's
   * INSERT for the statement's WITH clause (`auditRecordAlongside`, written only when the change
   * changed a row) and answers undefined when it changed nothing, which then left no record
   * either. One round trip for change, record and commit, where `auditedChange` takes four.
   */
  async changeInOneStatement<T>(
    request: FastifyRequest,
    principal: Principal,
    status: number,
    work: (alongside: (changed: string) => RawBuilder<unknown>) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const record = auditRecord(auditEntry(request, principal, status))
    const value = await work((changed) => auditRecordAlongside(record, changed))
    if (value !== undefined) this.written(request)
    return value
  }

  /** The request's record was written with its change (`auditedChange`). */
  written(request: FastifyRequest): void {
    this.#written.add(request)
  }

  isWritten(request: FastifyRequest): boolean {
    return this.#written.has(request)
  }

  flush(): Promise<void> {
    return this.#batcher.flush()
  }
}
