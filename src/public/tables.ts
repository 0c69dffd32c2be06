import type { ColumnType } from 'kysely'
import type { CreatedAt, Json, Timestamp } from '../infra/tables.ts'

export interface AuditReportsTable {
  id: string
  domain: string
  premium: boolean
  report: Json
  created_at: CreatedAt
}

export interface McsResultsTable {
  domain: string
  result: Json
  created_at: ColumnType<Date, Date | string | undefined, Date | string>
  expires_at: Timestamp
}

export interface CwvCacheTable {
  cache_key: string
  body: Json
  expires_at: Timestamp
}

export interface CwvQuotaTable {
  window_start: Timestamp
  used: number
}

export interface CwvTrackedDomainsTable {
  domain: string
  created_at: CreatedAt
  last_snapshot_at: Timestamp | null
}

export interface CwvSnapshotsTable {
  id: string
  domain: string
  /** A calendar day, YYYY-MM-DD. */
  taken_on: ColumnType<string, string, string>
  snapshot: Json
  created_at: CreatedAt
}

/** Tables of this room; src/infra/tables.ts composes them into the Database type. */
export interface PublicTables {
  audit_reports: AuditReportsTable
  mcs_results: McsResultsTable
  cwv_cache: CwvCacheTable
  cwv_quota: CwvQuotaTable
  cwv_tracked_domains: CwvTrackedDomainsTable
  cwv_snapshots: CwvSnapshotsTable
}
