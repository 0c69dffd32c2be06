import type { ColumnType, Generated } from 'kysely'
import type { CreatedAt, Timestamp } from '../infra/tables.ts'

type JsonArray = ColumnType<string[], string, string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export type Plan = 'free' | 'lite' | 'plus' | 'pro' | 'max'

export interface IdentitySecretsTable {
  name: string
  value_sealed: string
  created_at: CreatedAt
}

export interface AccountsTable {
  id: string
  plan: Generated<Plan>
  created_at: CreatedAt
}

export interface UsersTable {
  id: string
  account_id: string
  /** Keyed hash (HMAC-SHA256) of the normalised email: lookups without storing the address in clear. */
  email_hash: string
  email_sealed: string
  created_at: CreatedAt
  last_sign_in_at: NullableTimestamp
}

export interface SignInChallengesTable {
  id: string
  email_hash: string
  email_sealed: string
  code_hash: string
  return_to: string
  attempts: Generated<number>
  expires_at: Timestamp
  consumed_at: NullableTimestamp
  created_at: CreatedAt
}

export interface WebSessionsTable {
  id: string
  token_hash: string
  user_id: string
  expires_at: Timestamp
  created_at: CreatedAt
}

export interface OAuthClientsTable {
  client_id: string
  client_name: string
  redirect_uris: JsonArray
  grant_types: JsonArray
  token_endpoint_auth_method: Generated<string>
  source: 'registered' | 'metadata_document'
  created_at: CreatedAt
  refreshed_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface AuthorizationCodesTable {
  code_hash: string
  client_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string
  scope: string
  resource: string
  family_id: string
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: CreatedAt
}

export interface RefreshTokensTable {
  id: string
  token_hash: string
  family_id: string
  client_id: string
  /** `sub` of the access tokens it mints: the user, or the claimed agent registration. */
  subject: string
  user_id: string
  scope: string
  resource: string
  status: Generated<'active' | 'used' | 'revoked'>
  access_jti: string
  access_expires_at: Timestamp
  expires_at: Timestamp
  used_at: NullableTimestamp
  created_at: CreatedAt
}

export interface RevokedTokensTable {
  jti: string
  expires_at: Timestamp
  revoked_at: CreatedAt
}

export interface AgentRegistrationsTable {
  id: string
  status: Generated<'anonymous' | 'claimed'>
  claim_token_hash: string
  expires_at: Timestamp
  user_id: string | null
  account_id: string | null
  claimed_at: NullableTimestamp
  created_at: CreatedAt
}

export interface ClaimAttemptsTable {
  id: string
  registration_id: string
  user_code_hash: string
  email_hash: string
  email_sealed: string
  status: Generated<'pending' | 'approved' | 'denied' | 'redeemed'>
  interval_seconds: number
  failed_entries: Generated<number>
  last_polled_at: NullableTimestamp
  user_id: string | null
  decided_at: NullableTimestamp
  expires_at: Timestamp
  created_at: CreatedAt
}

export interface OutboxTable {
  id: string
  to_sealed: string
  subject: string
  body_sealed: string
  created_at: CreatedAt
}

/** Tables of this room; src/infra/tables.ts composes them into the Database type. */
export interface IdentityTables {
  identity_secrets: IdentitySecretsTable
  accounts: AccountsTable
  users: UsersTable
  sign_in_challenges: SignInChallengesTable
  web_sessions: WebSessionsTable
  oauth_clients: OAuthClientsTable
  authorization_codes: AuthorizationCodesTable
  refresh_tokens: RefreshTokensTable
  revoked_tokens: RevokedTokensTable
  agent_registrations: AgentRegistrationsTable
  claim_attempts: ClaimAttemptsTable
  outbox: OutboxTable
}
