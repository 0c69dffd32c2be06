import { type Kysely, sql } from 'kysely'

/**
 * The REST API's own data: a per-account quota override, API tokens (secrets kept only as
 * SHA-256 hashes, with the previous secret during a rotation's grace period), hourly request
 * counters shared by every instance, stored answers of Idempotency-Keys, and the audit log.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`

  await db.schema
    .alterTable('accounts')
    .addColumn('quota_override', 'integer', (c) => c.check(sql`quota_override >= 0`))
    .execute()

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('previous_secret_hash', 'text')
    .addColumn('previous_expires_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('api_tokens_account').on('api_tokens').columns(['account_id', 'created_at']).execute()

  await db.schema
    .createTable('api_quota')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_quota_pk', ['account_id', 'window_start'])
    .execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('processing', 'done')`))
    .addColumn('lease_until', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute()

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('audit_log_account_at').on('audit_log').columns(['account_id', 'at', 'id']).execute()
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['audit_log', 'idempotency_keys', 'api_quota', 'api_tokens']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
  await db.schema.alterTable('accounts').dropColumn('quota_override').execute()
}
