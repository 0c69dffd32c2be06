import { type Kysely, sql } from 'kysely'

/**
 * Site content for the REST API: pages, blocks, domains and builds. Sites get their published
 * state (draft | live | offline, the old 'suspended' becoming 'offline'), their locales and their
 * live build; a site's hostnames move into `domains`, where a hostname is active on one site only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sites drop constraint sites_status_check`.execute(db)
  await sql`update sites set status = 'offline' where status = 'suspended'`.execute(db)
  await sql`alter table sites add constraint sites_status_check check (status in ('draft', 'live', 'offline'))`.execute(db)
  await sql`alter table sites alter column status set default 'draft'`.execute(db)
  await db.schema
    .alterTable('sites')
    .addColumn('locales', 'jsonb', (c) => c.notNull().defaultTo(sql`'["en"]'::jsonb`))
    .execute()
  await sql`update sites set locales = jsonb_build_array(default_locale)`.execute(db)
  await db.schema.alterTable('sites').addColumn('published_at', 'timestamptz').execute()
  // Sites that were live before builds existed count as published when they were made.
  await sql`update sites set published_at = created_at where status = 'live'`.execute(db)
  await db.schema.alterTable('sites').addColumn('live_build_id', 'text').execute()

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'active', 'failed')`))
    .addColumn('primary', 'boolean', (c) => c.notNull().defaultTo(false))
    // The value the TXT record _wps-challenge.<hostname> must hold; public by nature, so kept in clear.
    .addColumn('verification_value', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz')
    .addColumn('checked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index domains_site_hostname on domains (site_id, hostname)`.execute(db)
  // A hostname is active on one site only; pending claims may compete until one proves control.
  await sql`create unique index domains_active_hostname on domains (hostname) where status = 'active'`.execute(db)
  await sql`create unique index domains_one_primary on domains (site_id) where "primary"`.execute(db)
  await sql`
    insert into domains (id, site_id, hostname, status, "primary", verification_value, verified_at, created_at)
    select 'dom_' || replace(gen_random_uuid()::text, '-', ''), id, hostname, 'active', true,
           'wps-verify=' || replace(gen_random_uuid()::text, '-', ''), created_at, created_at
    from sites`.execute(db)
  await db.schema.alterTable('sites').dropColumn('hostname').execute()

  await db.schema
    .createTable('pages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull().check(sql`locale in ('de', 'en', 'fr')`))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index pages_site_locale_path on pages (site_id, locale, path)`.execute(db)

  await db.schema
    .createTable('blocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('page_id', 'text', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().check(sql`position >= 0`))
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  // Deferred, so one statement can shift a run of positions without tripping over itself.
  await sql`alter table blocks add constraint blocks_page_position unique (page_id, position) deferrable initially deferred`.execute(db)

  await db.schema
    .createTable('builds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued', 'running', 'succeeded', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('pages', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute()
  await sql`create index builds_site_created on builds (site_id, created_at desc)`.execute(db)
  // Never two builds of one site at once.
  await sql`create unique index builds_one_active on builds (site_id) where status in ('queued', 'running')`.execute(db)
  await sql`alter table sites add constraint sites_live_build foreign key (live_build_id) references builds (id) on delete set null`.execute(
    db,
  )

  await sql`alter table leads add constraint leads_source_check check (source in ('assistant', 'contact_form'))`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table leads drop constraint leads_source_check`.execute(db)
  await sql`alter table sites drop constraint sites_live_build`.execute(db)
  await db.schema.dropTable('builds').execute()
  await db.schema.dropTable('blocks').execute()
  await db.schema.dropTable('pages').execute()
  await db.schema.alterTable('sites').addColumn('hostname', 'text').execute()
  await sql`update sites set hostname = d.hostname from domains d where d.site_id = sites.id and d."primary" and d.status = 'active'`.execute(
    db,
  )
  await sql`update sites set hostname = id || '.invalid' where hostname is null`.execute(db)
  await sql`alter table sites alter column hostname set not null`.execute(db)
  await sql`alter table sites add constraint sites_hostname_key unique (hostname)`.execute(db)
  await db.schema.dropTable('domains').execute()
  await db.schema.alterTable('sites').dropColumn('live_build_id').dropColumn('published_at').dropColumn('locales').execute()
  await sql`alter table sites drop constraint sites_status_check`.execute(db)
  await sql`update sites set status = 'suspended' where status = 'offline'`.execute(db)
  await sql`alter table sites add constraint sites_status_check check (status in ('draft', 'live', 'suspended'))`.execute(db)
  await sql`alter table sites alter column status set default 'live'`.execute(db)
}
