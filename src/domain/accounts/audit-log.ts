import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely'
import type { Logger } from 'pino'
import { newTimeOrderedId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { AuditLogTable } from '../../infra/tables.ts'
import { countAuditRecordsByDay } from './audit-log-totals.ts'
import type { Paging } from '../paging.ts'

/** Audit records are kept this long (INTERFACE.md 8), then purged by a daily job. */
export const AUDIT_RETENTION_DAYS = 90

export type AuditRecord = Insertable<AuditLogTable>
export type AuditRow = Selectable<AuditLogTable>

export interface AuditEntry {
  at?: Date
  accountId: string
  tokenId: string | null
  clientId: string | null
  /** The member who acted; null (or absent) for the operator's tokens. */
  userId?: string | null
  operation: string
  method: string
  path: string
  status: number
  requestId: string
  ip: string
}

export function auditRecord(entry: AuditEntry): AuditRecord {
  const at = entry.at ?? new Date()
  return {
    // Two calls answered in the same millisecond share `at`; the id keeps them in order.
    id: newTimeOrderedId('aud', at.getTime()),
    at,
    account_id: entry.accountId,
    token_id: entry.tokenId,
    client_id: entry.clientId,
    user_id: entry.userId ?? null,
    operation: entry.operation,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    request_id: entry.requestId,
    ip: entry.ip,
  }
}

/**
 * Writes records with one fixed statement whatever their number: the batch travels as one JSON
 * parameter. A multi-row VALUES list of 500 records was 5,500 parameters to compile, bind and
 * plan; a text array per column was cheaper, but the driver's escaping of every element into
 * array literals was still most of the batch's cost on a busy /mcp. Times go as epoch
 * milliseconds, so the records are plain JSON that JSON.stringify writes in its fast path (a Date
 * takes its slow one). Records of an erased account are dropped: a batch written after the erase
 * (its requests came just before) would otherwise bring back who did what in it.
 */
export async function insertAuditRecords(db: Db, records: AuditRecord[]): Promise<void> {
  if (!records.length) return
  const rows = records.map((r) => ({
    id: r.id,
    at: r.at instanceof Date ? r.at.getTime() : Date.parse(String(r.at)),
    account_id: r.account_id,
    token_id: r.token_id ?? null,
    client_id: r.client_id ?? null,
    user_id: r.user_id ?? null,
    operation: r.operation,
    method: r.method,
    path: r.path,
    status: r.status,
    request_id: r.request_id,
    ip: r.ip,
  }))
  await sql`insert into audit_log (id, at, account_id, token_id, client_id, user_id, operation, method, path, status, request_id, ip)
    select id, to_timestamp(at / 1000), account_id, token_id, client_id, user_id, operation, method, path, status, request_id, ip
    from json_to_recordset(${JSON.stringify(rows)}::json) as r(id text, at float8, account_id text, token_id text, client_id text,
      user_id text, operation text, method text, path text, status int, request_id text, ip text)
    where not exists (select from accounts a where a.id = r.account_id and a.erased_at is not null)`.execute(db)
}

/**
 * The INSERT of one record for the WITH clause of a change's own statement, written only when
 * the statement's CTE `changed` holds a row: the change and its record then commit together in
 * one round trip, with no transaction held open between statements (a row lock held across
 * BEGIN, the change, the record and COMMIT made concurrent changes of one row queue for four
 * round trips each instead of one).
 */
export function auditRecordAlongside(record: AuditRecord, changed: string): RawBuilder<unknown> {
  return sql`insert into audit_log (id, at, account_id, token_id, client_id, user_id, operation, method, path, status, request_id, ip)
    select ${record.id}::text, ${record.at}::timestamptz, ${record.account_id}::text, ${record.token_id ?? null}::text, ${record.client_id ?? null}::text,
      ${record.user_id ?? null}::text, ${record.operation}::text, ${record.method}::text, ${record.path}::text, ${record.status}::int, ${record.request_id}::text, ${record.ip}::text
    where exists (select from ${sql.table(changed)})`
}

export interface AuditFilter {
  since?: Date
  until?: Date
  tokenId?: string
  /** The member who acted (`usr_…`). */
  userId?: string
  operation?: string
}

/** One account's records, newest first; the total of an unfiltered or time-filtered list comes from the day counts. */
export async function listAuditRecords(
  db: Db,
  accountId: string,
  filter: AuditFilter,
  { limit, offset }: Paging,
): Promise<{ rows: AuditRow[]; total: number }> {
  let base = db.selectFrom('audit_log').where('account_id', '=', accountId)
  if (filter.since) base = base.where('at', '>=', filter.since)
  if (filter.until) base = base.where('at', '<', filter.until)
  if (filter.tokenId) base = base.where('token_id', '=', filter.tokenId)
  if (filter.userId) base = base.where('user_id', '=', filter.userId)
  if (filter.operation) base = base.where('operation', '=', filter.operation)
  const countAll = async () => Number((await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n)
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    countAuditRecordsByDay(db, accountId, filter).then((counted) => counted ?? countAll()),
  ])
  return { rows, total }
}

export async function purgeAuditLog(db: Db, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - AUDIT_RETENTION_DAYS * 86_400_000)
  const result = await db.deleteFrom('audit_log').where('at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export interface AuditBatcherOptions {
  /** Longest a record waits in memory before it is written. */
  flushMs?: number
  /** A batch of this many is written at once. */
  maxBatch?: number
}

/**
 * Records that need no transaction of their own (reads, refusals, failed writes) wait here and
 * are written many rows to one INSERT, off the request path. A record of a committed change
 * never comes through here: it is written in the change's own transaction, so a crash cannot lose it.
 */
export class AuditBatcher {
  readonly #db: Db
  readonly #log: Logger
  readonly #flushMs: number
  readonly #maxBatch: number
  #pending: AuditRecord[] = []
  #timer: NodeJS.Timeout | undefined
  #writing: Promise<void> = Promise.resolve()

  constructor(db: Db, log: Logger, options: AuditBatcherOptions = {}) {
    this.#db = db
    this.#log = log
    this.#flushMs = options.flushMs ?? 1000
    this.#maxBatch = options.maxBatch ?? 500
  }

  add(record: AuditRecord): void {
    this.#pending.push(record)
    if (this.#pending.length >= this.#maxBatch) void this.flush()
    else this.#timer ??= setTimeout(() => void this.flush(), this.#flushMs).unref()
  }

  /** Writes what is pending; batches are written one after another, in order. */
  flush(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const batch = this.#pending
    this.#pending = []
    if (!batch.length) return this.#writing
    this.#writing = this.#writing.then(() =>
      insertAuditRecords(this.#db, batch).catch((error: unknown) => {
        // The database is away: keep the records for the next flush instead of dropping them.
        this.#log.warn({ err: error, records: batch.length }, 'audit records not written yet')
        this.#pending.unshift(...batch)
        this.#timer ??= setTimeout(() => void this.flush(), this.#flushMs * 5).unref()
      }),
    )
    return this.#writing
  }
}
