import type { ColumnType, Generated } from 'kysely'
import type { AgentTables } from '../agent/tables.ts'
import type { IdentityTables } from '../identity/tables.ts'
import type { PublicTables } from '../public/tables.ts'
import type { RestTables } from '../rest/tables.ts'
import type { SitesTables } from '../sites/tables.ts'

/** A timestamptz column: written as Date or ISO string, read as Date. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>
export type Json<T = unknown> = ColumnType<T, string, string>

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed'

export interface JobsTable {
  id: string
  name: string
  payload: ColumnType<unknown, string, string>
  state: Generated<JobState>
  attempts: Generated<number>
  max_attempts: number
  run_at: ColumnType<Date, Date | string | undefined, Date | string>
  lease_owner: string | null
  lease_until: Timestamp | null
  last_error: string | null
  unique_key: string | null
  created_at: CreatedAt
  finished_at: Timestamp | null
}

export interface SigningKeysTable {
  kid: string
  alg: string
  public_jwk: ColumnType<JsonWebKeyPublic, string, string>
  private_jwk_sealed: string
  status: 'active' | 'retired'
  created_at: CreatedAt
  retired_at: Timestamp | null
}

export interface JsonWebKeyPublic {
  kty: string
  n?: string
  e?: string
  [key: string]: unknown
}

export interface FoundationTables {
  jobs: JobsTable
  signing_keys: SigningKeysTable
}

/** Every table of the service; each room declares its own next to its code. */
export interface Database extends FoundationTables, AgentTables, IdentityTables, PublicTables, RestTables, SitesTables {}
