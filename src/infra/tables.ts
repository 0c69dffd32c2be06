import type { ColumnType, Generated } from 'kysely'

/**
 * Every table of the service, in one place beside the migrations that create them. Types only.
 *
 * A few columns hold values the domain defines (a locale, a plan, a site's settings). infra names
 * no domain type: src/domain/columns.ts fills `DomainColumns` in by declaration merging, as the
 * rooms add to Fastify's types, and the columns below take those types from it.
 */
export interface DomainColumns {}
type DomainColumn<K extends string, Otherwise> = DomainColumns extends { [P in K]: infer T } ? T : Otherwise
type Locale = DomainColumn<'locale', string>
type Plan = DomainColumn<'plan', string>
type SiteSettings = DomainColumn<'siteSettings', Record<string, unknown>>

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

// Sites and leads (src/domain)

/** draft: never published; live: a build is published; offline: taken down (the assistant stops too). */
export type SiteStatus = 'draft' | 'live' | 'offline'

export interface SitesTable {
  id: string
  account_id: string | null
  name: string
  /** The platform subdomain's label: the site is served at {slug}.{SITES_DOMAIN}. */
  slug: ColumnType<string, string | undefined, string>
  status: ColumnType<SiteStatus, SiteStatus | undefined, SiteStatus>
  default_locale: ColumnType<Locale, Locale | undefined, Locale>
  locales: ColumnType<Locale[], string | undefined, string>
  settings: ColumnType<SiteSettings, string | undefined, string>
  published_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  live_build_id: ColumnType<string | null, string | null | undefined, string | null>
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
  /** The status a site had before its account was suspended for deletion; null otherwise. */
  suspended_status: ColumnType<SiteStatus | null, SiteStatus | null | undefined, SiteStatus | null>
}

export interface LeadsTable {
  id: string
  site_id: string
  session_id: string | null
  email_sealed: string
  name_sealed: string | null
  note_sealed: string | null
  dedupe_key: string
  consent_version: string
  consent_digest: string
  consent_locale: Locale
  consent_accepted_at: Timestamp
  source: LeadSource
  /** new until answered or archived (migration lead-status). */
  status: ColumnType<LeadStatus, LeadStatus | undefined, LeadStatus>
  created_at: CreatedAt
}

export type LeadSource = 'assistant' | 'contact_form'
export type LeadStatus = 'new' | 'answered' | 'archived'

export interface SitesTables {
  sites: SitesTable
  leads: LeadsTable
}

// Sales assistant (src/agent)

/** The handoff state machine's states (DESIGN.md 6); src/domain/leads/handoff.ts moves between them. */
export type HandoffState = 'none' | 'requested' | 'active' | 'resolved'

export interface AgentSessionsTable {
  id: string
  /** SHA-256 hex of the session token; the token itself is never stored. */
  token_hash: string
  site_id: string
  locale: Locale
  handoff_state: ColumnType<HandoffState, HandoffState | undefined, HandoffState>
  handoff_updated_at: Timestamp | null
  created_at: CreatedAt
  last_active_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface AgentMessagesTable {
  id: Generated<string>
  session_id: string
  role: 'visitor' | 'assistant' | 'operator'
  /** The message text sealed with the data key (a visitor may write personal data into the chat). */
  text_sealed: string
  turn_id: string | null
  created_at: ColumnType<Date, Date | string | undefined, never>
}

export interface AgentTurnsTable {
  session_id: string
  turn_id: string
  request_hash: string
  state: 'processing' | 'done'
  lease_owner: string | null
  lease_until: Timestamp | null
  attempts: Generated<number>
  response: string | null
  created_at: CreatedAt
  completed_at: Timestamp | null
}

export interface AgentEventsTable {
  session_id: string
  type: string
  count: Generated<number>
  first_at: CreatedAt
  last_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface AgentTables {
  agent_sessions: AgentSessionsTable
  agent_messages: AgentMessagesTable
  agent_turns: AgentTurnsTable
  agent_events: AgentEventsTable
}

// Identity (src/identity)

type JsonArray = ColumnType<string[], string, string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface IdentitySecretsTable {
  name: string
  value_sealed: string
  created_at: CreatedAt
}

export interface AccountsTable {
  id: string
  plan: Generated<Plan>
  /** Requests an hour instead of the plan's budget (DESIGN.md 7); null keeps the plan's. */
  quota_override: ColumnType<number | null, number | null | undefined, number | null>
  created_at: CreatedAt
  /** Set while the account waits to be erased (DESIGN.md 19); a restore clears them. */
  deletion_requested_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  erase_after: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** When everything of the account was erased: the row stays as the record, without personal data. */
  erased_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** The owner wants the week's visitors by mail (plans without scheduled SEO reports). */
  weekly_stats_mail: Generated<boolean>
  /** The ISO week of the last weekly visitor summary sent, claimed before sending. */
  weekly_stats_mailed: ColumnType<string | null, string | null | undefined, string | null>
}

export interface UsersTable {
  id: string
  account_id: string
  /** Keyed hash (HMAC-SHA256) of the normalised email: lookups without storing the address in clear. */
  email_hash: string
  email_sealed: string
  created_at: CreatedAt
  last_sign_in_at: NullableTimestamp
  /** The language the person chose (de, en, fr) for the dashboard and their mail; null: the browser's. */
  language: ColumnType<string | null, string | null | undefined, string | null>
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
  /** The account the person chose in this browser; null: their default account (users.account_id). */
  account_id: ColumnType<string | null, string | null | undefined, string | null>
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
  /** The account the person chose on the consent page; null: their default account. */
  account_id: string | null
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
  /** The account the grant acts for; null: the person's default account. */
  account_id: string | null
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
  /** The account the approving person chose for the agent; null: their default account. */
  account_id: string | null
  decided_at: NullableTimestamp
  expires_at: Timestamp
  created_at: CreatedAt
}

export type MemberRole = 'owner' | 'editor' | 'viewer'

export interface AccountMembersTable {
  account_id: string
  user_id: string
  role: MemberRole
  created_at: CreatedAt
  /** Insertion order, the tie-break of `created_at` (migration member-order); never written. */
  seq: ColumnType<string, never, never>
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface AccountInvitationsTable {
  id: string
  account_id: string
  /** Keyed hash of the invited address, as users.email_hash. */
  email_hash: string
  email_sealed: string
  role: MemberRole
  /** SHA-256 hex of the link's secret; the secret itself is only in the mail. */
  secret_hash: string
  invited_by: string | null
  created_at: CreatedAt
  expires_at: Timestamp
  accepted_at: NullableTimestamp
  accepted_by: string | null
  withdrawn_at: NullableTimestamp
}

export interface OutboxTable {
  id: string
  to_sealed: string
  subject: string
  body_sealed: string
  created_at: CreatedAt
}

export interface IdentityTables {
  identity_secrets: IdentitySecretsTable
  accounts: AccountsTable
  users: UsersTable
  account_members: AccountMembersTable
  account_invitations: AccountInvitationsTable
  sign_in_challenges: SignInChallengesTable
  sign_in_warnings: SignInWarningsTable
  web_sessions: WebSessionsTable
  oauth_clients: OAuthClientsTable
  authorization_codes: AuthorizationCodesTable
  refresh_tokens: RefreshTokensTable
  revoked_tokens: RevokedTokensTable
  agent_registrations: AgentRegistrationsTable
  claim_attempts: ClaimAttemptsTable
  outbox: OutboxTable
}

// Public checks (src/public)

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

export interface PublicTables {
  audit_reports: AuditReportsTable
  mcs_results: McsResultsTable
  cwv_cache: CwvCacheTable
  cwv_quota: CwvQuotaTable
  cwv_tracked_domains: CwvTrackedDomainsTable
  cwv_snapshots: CwvSnapshotsTable
}

// Accounts, API tokens, quotas, idempotency and the audit log (src/domain, src/rest)

export interface ApiTokensTable {
  id: string
  account_id: string
  /** The member who made it (it acts with their role); null: made by the operator for the account. */
  user_id: ColumnType<string | null, string | null | undefined, string | null>
  name: string
  /** Space-separated scopes. */
  scopes: string
  /** SHA-256 hex of the secret; the secret itself is shown once and never stored. */
  secret_hash: string
  /** The secret replaced by a rotation, accepted until previous_expires_at. */
  previous_secret_hash: string | null
  previous_expires_at: NullableTimestamp
  expires_at: NullableTimestamp
  last_used_at: NullableTimestamp
  revoked_at: NullableTimestamp
  created_at: CreatedAt
}

export interface ApiQuotaTable {
  account_id: string
  /** The start of the hour the counter belongs to. */
  window_start: Timestamp
  used: number
}

export interface IdempotencyKeysTable {
  account_id: string
  /** The credential that sent the key: an API token's id, or the subject of an OAuth token. */
  caller: string
  key: string
  /** SHA-256 hex of the method, route and body the key was first used with. */
  request_hash: string
  state: 'processing' | 'done'
  /** A request still processing after this time (its process died) may be taken again. */
  lease_until: Timestamp
  status: number | null
  /** JSON object of the stored answer's headers. */
  headers: string | null
  /** The answer's body, sealed with the data key (it may hold a secret shown once). */
  body: string | null
  created_at: CreatedAt
}

export interface AuditLogTable {
  id: string
  at: Timestamp
  account_id: string
  token_id: string | null
  client_id: string | null
  /** The member who acted (the token's or the access token's person); null for the operator's tokens. */
  user_id: ColumnType<string | null, string | null | undefined, string | null>
  operation: string
  method: string
  /** The route template (/v1/sites/:id), never the concrete URL. */
  path: string
  status: number
  request_id: string
  ip: string
}

export interface AccountAddOnsTable {
  account_id: string
  add_on: string
  quantity: number
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** One zip of everything an account holds (DESIGN.md 19), kept 7 days. */
export interface AccountExportsTable {
  id: string
  account_id: string
  requested_by: string | null
  status: ColumnType<
    'pending' | 'ready' | 'failed' | 'expired',
    'pending' | 'ready' | 'failed' | 'expired' | undefined,
    'pending' | 'ready' | 'failed' | 'expired'
  >
  archive: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>
  size_bytes: number | null
  error: string | null
  created_at: CreatedAt
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** What Stripe says of an account's subscription, read back from it (DESIGN.md 16). */
export interface AccountBillingTable {
  account_id: string
  /** The operator set the plan by hand: Stripe's events leave it alone. */
  manual: Generated<boolean>
  customer_id: string | null
  subscription_id: string | null
  status: Generated<string>
  /** The plan the subscription pays for (the account's plan unless manual or fallen back). */
  plan: string | null
  interval: string | null
  add_ons: ColumnType<Record<string, number>, string | undefined, string>
  current_period_end: Date | null
  /** A downgrade booked for the period's end: `{plan, interval, add_ons: {id: quantity}, at}`. */
  scheduled: ColumnType<
    { plan: string; interval: string; add_ons: Record<string, number>; at: string } | null,
    string | null | undefined,
    string | null
  >
  cancel_at_period_end: Generated<boolean>
  past_due_since: Date | null
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** The Stripe events handled, each once. */
export interface StripeEventsTable {
  id: string
  type: string
  account_id: string | null
  received_at: CreatedAt
}

export interface AccountTables {
  account_exports: AccountExportsTable
  account_billing: AccountBillingTable
  stripe_events: StripeEventsTable
  account_add_ons: AccountAddOnsTable
  api_tokens: ApiTokensTable
  api_quota: ApiQuotaTable
  idempotency_keys: IdempotencyKeysTable
  audit_log: AuditLogTable
}

// Site content: pages, blocks, domains, builds (src/domain, src/rest, src/sites)

export interface PagesTable {
  id: string
  site_id: string
  path: string
  locale: Locale
  title: string
  description: ColumnType<string, string | undefined, string>
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface BlocksTable {
  id: string
  page_id: string
  type: string
  /** Dense per page: 0..n-1, kept so by src/domain/sites/blocks.ts under a lock on the page. */
  position: number
  content: ColumnType<unknown, string, string>
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export type DomainStatus = 'pending' | 'active' | 'failed'

export interface DomainsTable {
  id: string
  site_id: string
  hostname: string
  status: ColumnType<DomainStatus, DomainStatus | undefined, DomainStatus>
  primary: ColumnType<boolean, boolean | undefined, boolean>
  verification_value: string
  verified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  checked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** Why the last check failed (status failed); null otherwise. */
  failure_code: ColumnType<DomainFailureCode | null, DomainFailureCode | null | undefined, DomainFailureCode | null>
  failure_detail: ColumnType<string | null, string | null | undefined, string | null>
  created_at: CreatedAt
}

export type DomainFailureCode = 'no_record' | 'wrong_value' | 'lookup_failed' | 'hostname_taken'

export type BuildStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface BuildsTable {
  id: string
  site_id: string
  status: ColumnType<BuildStatus, BuildStatus | undefined, BuildStatus>
  error: ColumnType<string | null, string | null | undefined, string | null>
  pages: ColumnType<number | null, number | null | undefined, number | null>
  created_at: CreatedAt
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** Who asked for it: set at commit from the audit record of the request (a trigger), else null. */
  user_id: Generated<string | null>
  token_id: Generated<string | null>
  client_id: Generated<string | null>
}

/** A page as one transaction committed it, with its blocks (DESIGN.md 19); written by triggers. */
export interface PageRevisionsTable {
  id: string
  seq: Generated<string>
  page_id: string
  tx: string
  created_at: Generated<Date>
  user_id: string | null
  token_id: string | null
  client_id: string | null
  operation: string | null
  snapshot: ColumnType<PageSnapshot, string, string>
}

export interface PageSnapshot {
  path: string
  locale: Locale
  title: string
  description: string
  blocks: Array<{ id: string; type: string; position: number; content: unknown }>
}

/** An address of a site that sends visitors elsewhere (DESIGN.md 19). */
export interface SiteRedirectsTable {
  id: string
  site_id: string
  /** The address on the site's hosts, a path as visitors type it ("/old-page"). */
  from_path: string
  /** A path of the same site or an http(s) URL. */
  to_target: string
  status: 301 | 302
  created_at: CreatedAt
}

export interface ContentTables {
  site_redirects: SiteRedirectsTable
  page_revisions: PageRevisionsTable
  pages: PagesTable
  blocks: BlocksTable
  domains: DomainsTable
  builds: BuildsTable
}

// Hosted sites: release files, assistant passages, backlinks (src/sites)

/** Bytes as the drivers read them: Buffer on pg, Uint8Array on PGlite. */
type Bytes = ColumnType<Uint8Array, Uint8Array, Uint8Array>

export interface BuildFilesTable {
  build_id: string
  path: string
  content_type: string
  etag: string
  body: Bytes
  gzip: Bytes
  br: Bytes
}

export interface SitePassagesTable {
  build_id: string
  position: number
  site_id: string
  locale: Locale
  url: string
  title: string
  text: string
}

export interface SiteBacklinksTable {
  id: string
  site_id: string
  source: string
  target: string
  verified_at: Timestamp
  created_at: CreatedAt
}

/** Each (site, source, target) ever announced by backlink.detected, so it is announced once. */
export interface BacklinkDetectionsTable {
  site_id: string
  source: string
  target: string
  detected_at: Timestamp
}

export interface HostedSiteTables {
  build_files: BuildFilesTable
  site_passages: SitePassagesTable
  site_backlinks: SiteBacklinksTable
  backlink_detections: BacklinkDetectionsTable
}

// MCP (src/mcp)

export interface McpTables {}

// Events, webhooks, site audits and social posts (src/domain/webhooks, src/domain/social)

export interface EventsTable {
  id: string
  account_id: string
  site_id: string | null
  type: string
  /** The event's data without its personal fields. */
  data: ColumnType<Record<string, unknown>, string, string>
  /** The personal fields (JSON object) sealed with the data key; merged into `data` to sign and send. */
  personal_sealed: string | null
  created_at: CreatedAt
}

export interface WebhookEndpointsTable {
  id: string
  account_id: string
  url: string
  description: ColumnType<string, string | undefined, string>
  /** Event types the endpoint receives; empty means every type. */
  event_types: ColumnType<string[], string | undefined, string>
  enabled: ColumnType<boolean, boolean | undefined, boolean>
  disabled_reason: string | null
  secret_sealed: string
  previous_secret_sealed: string | null
  previous_expires_at: NullableTimestamp
  /** When the run of failed attempts began; null while the endpoint answers. */
  failing_since: NullableTimestamp
  created_at: CreatedAt
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export type WebhookDeliveryState = 'pending' | 'succeeded' | 'dead'

/** Why a webhook delivery failed (src/domain/webhooks/outcome.ts): the dashboard words it from this. */
export type WebhookFailure = 'status' | 'dns' | 'timeout' | 'connection' | 'redirect' | 'address' | 'plan' | 'disabled'

/** The live items of an account's media library, kept by a trigger (migration media-counts). */
export interface MediaCountsTable {
  account_id: string
  live: number
}

export interface WebhookDeliveriesTable {
  id: string
  account_id: string
  endpoint_id: string
  event_id: string
  state: ColumnType<WebhookDeliveryState, WebhookDeliveryState | undefined, WebhookDeliveryState>
  attempts: Generated<number>
  first_attempt_at: NullableTimestamp
  last_status: number | null
  last_error: string | null
  last_failure: WebhookFailure | null
  delivered_at: NullableTimestamp
  failed_at: NullableTimestamp
  replayed_at: NullableTimestamp
  created_at: CreatedAt
}

export interface WebhookAttemptsTable {
  id: string
  delivery_id: string
  endpoint_id: string
  attempt: number
  attempted_at: Timestamp
  status: number | null
  duration_ms: number
  /** The first kilobyte of the receiver's answer, sealed: a receiver may echo personal data. */
  response: string | null
  error: string | null
  failure: WebhookFailure | null
}

export interface SiteAuditsTable {
  id: string
  account_id: string
  site_id: string
  domain: string
  state: ColumnType<'queued' | 'done' | 'failed', 'queued' | 'done' | 'failed' | undefined, 'queued' | 'done' | 'failed'>
  /** weekly and monthly: the scheduled report of the account's plan. */
  trigger: 'api' | 'mcp' | 'weekly' | 'monthly'
  report_id: string | null
  score: number | null
  axes: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  error: string | null
  created_at: CreatedAt
  finished_at: NullableTimestamp
  /** The week or month a scheduled report is for (one per site and period); null for one asked for. */
  period: ColumnType<string | null, string | null | undefined, string | null>
  /** When the owner's mail of a scheduled report went out. */
  mailed_at: NullableTimestamp
}

export type SocialNetwork = 'mastodon' | 'bluesky'

export interface SocialAccountsTable {
  id: string
  account_id: string
  network: SocialNetwork
  /** The Mastodon instance or the Bluesky PDS the account lives on. */
  server_url: string
  handle: string
  credentials_sealed: string
  /** Bluesky: the session (access and refresh JWTs) reused across posts, sealed; null until the first post. */
  session_sealed: ColumnType<string | null, string | null | undefined, string | null>
  created_at: CreatedAt
}

export type SocialPostState = 'scheduled' | 'posted' | 'failed'

export interface SocialPostsTable {
  id: string
  account_id: string
  social_account_id: string
  site_id: string | null
  text: string
  link: string | null
  scheduled_at: Timestamp
  state: ColumnType<SocialPostState, SocialPostState | undefined, SocialPostState>
  attempts: Generated<number>
  url: string | null
  error: string | null
  posted_at: NullableTimestamp
  created_at: CreatedAt
}

export interface EventTables {
  events: EventsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  site_audits: SiteAuditsTable
  social_accounts: SocialAccountsTable
  social_posts: SocialPostsTable
}

// Visitor statistics (src/domain/stats)

export interface StatsSaltsTable {
  /** A UTC day, YYYY-MM-DD. */
  day: ColumnType<string, string, never>
  salt: string
}

export interface StatsSeenTable {
  site_id: string
  day: ColumnType<string, string, never>
  /** The visitor's hash of the day (base64url); meaningless once the day's salt is gone. */
  visitor: string
  kind: string
  value: string
}

export interface StatsDaysTable {
  site_id: string
  day: ColumnType<string, string, never>
  pageviews: ColumnType<string, number | undefined, number>
  visitors: ColumnType<string, number | undefined, number>
  conversions: ColumnType<string, number | undefined, number>
}

export interface StatsItemsTable {
  site_id: string
  day: ColumnType<string, string, never>
  kind: string
  value: string
  pageviews: ColumnType<string, number | undefined, number>
  visitors: ColumnType<string, number | undefined, number>
}

/** A site's page views and visitors per item over an aligned block of 2^level days (migration stats-blocks). */
export interface StatsItemBlocksTable {
  site_id: string
  kind: string
  level: number
  start: ColumnType<string, string, never>
  value: string
  pageviews: ColumnType<string, number | undefined, number>
  visitors: ColumnType<string, number | undefined, number>
}

/** The last day a site's blocks of days cover. */
export interface StatsRolledTable {
  site_id: string
  through: ColumnType<string, string, string>
}

export type NoticeKind = 'contact_form' | 'assistant_lead' | 'handoff'
export type NoticeDelivery = 'instant' | 'digest' | 'none'

/** What visitors sent that the account's people hear of (migration notifications); no personal data of its own. */
export interface NoticesTable {
  id: string
  account_id: string
  site_id: string
  kind: NoticeKind
  lead_id: string | null
  session_id: string | null
  created_at: CreatedAt
}

/** A person's choice per account and kind; no row: at once. */
export interface NotificationSettingsTable {
  user_id: string
  account_id: string
  kind: NoticeKind
  delivery: NoticeDelivery
  digest_since: NullableTimestamp
  unsubscribed_at: NullableTimestamp
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface NotificationTables {
  notices: NoticesTable
  notification_settings: NotificationSettingsTable
}

export interface StatsTables {
  stats_salts: StatsSaltsTable
  stats_seen: StatsSeenTable
  stats_days: StatsDaysTable
  stats_items: StatsItemsTable
  stats_item_blocks: StatsItemBlocksTable
  stats_rolled: StatsRolledTable
}

// The media library (src/domain/media)

export interface MediaVariantRow {
  width: number
  height: number
  format: 'webp' | 'jpeg' | 'png'
  bytes: number
  key: string
  /** A file a site made from the image (its og:image cut, a logo's icons), not one of its widths. */
  role?: 'og' | 'icon'
}

export interface MediaTable {
  id: string
  account_id: string
  filename: string
  content_type: string
  width: number
  height: number
  bytes: number
  /** What the variants take in storage, counted against the plan's storage. */
  stored_bytes: number
  sha256: string
  alt: ColumnType<string, string | undefined, string>
  variants: ColumnType<MediaVariantRow[], string, string>
  created_by: string | null
  created_at: CreatedAt
  /** Removed from the library while a release still shows it; null while in the library. */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export interface MediaFilesTable {
  key: string
  media_id: string
  content_type: string
  body: Bytes
}

export interface BuildMediaTable {
  build_id: string
  media_id: string
}

export interface MediaTables {
  media: MediaTable
  media_files: MediaFilesTable
  media_counts: MediaCountsTable
  build_media: BuildMediaTable
}

/** When an address last got the mail saying someone keeps asking for its sign-in codes (src/identity/pages/sign-in.ts). */
export interface SignInWarningsTable {
  email_hash: string
  warned_at: Timestamp
}

/** Every table of the service. */
export interface Database
  extends FoundationTables,
    MediaTables,
    SitesTables,
    AgentTables,
    IdentityTables,
    PublicTables,
    AccountTables,
    ContentTables,
    HostedSiteTables,
    McpTables,
    EventTables,
    StatsTables,
    NotificationTables {}
