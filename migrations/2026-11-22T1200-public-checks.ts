import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  // SEO/AEO/GEO audit reports: a repeat within a short window is served from here.
  await db.schema
    .createTable('audit_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('premium', 'boolean', (c) => c.notNull())
    .addColumn('report', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create index audit_reports_recent on audit_reports (domain, premium, created_at desc)`.execute(db)

  // Lighthouse-based site quality results, one per domain, valid until expires_at.
  await db.schema
    .createTable('mcs_results')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('result', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()

  // CrUX answers, cached until the next daily dataset update.
  await db.schema
    .createTable('cwv_cache')
    .addColumn('cache_key', 'text', (c) => c.primaryKey())
    .addColumn('body', 'jsonb', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()

  // Chrome UX Report queries per minute window, shared by every instance (the API allows 150).
  await db.schema
    .createTable('cwv_quota')
    .addColumn('window_start', 'timestamptz', (c) => c.primaryKey())
    .addColumn('used', 'integer', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('cwv_tracked_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_snapshot_at', 'timestamptz')
    .execute()

  await db.schema
    .createTable('cwv_snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain', 'text', (c) => c.notNull().references('cwv_tracked_domains.domain').onDelete('cascade'))
    .addColumn('taken_on', 'date', (c) => c.notNull())
    .addColumn('snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  // One snapshot per domain and day: a retried job overwrites rather than duplicates.
  await sql`create unique index cwv_snapshots_daily on cwv_snapshots (domain, taken_on)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('cwv_snapshots').execute()
  await db.schema.dropTable('cwv_tracked_domains').execute()
  await db.schema.dropTable('cwv_quota').execute()
  await db.schema.dropTable('cwv_cache').execute()
  await db.schema.dropTable('mcs_results').execute()
  await db.schema.dropTable('audit_reports').execute()
}
