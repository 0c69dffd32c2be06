import { type Kysely, sql } from 'kysely'

/**
 * Hosted sites: the files of each build (an immutable release, stored with its br and gzip copies),
 * the passages the site's assistant answers from, and the backlinks that verified Webmentions
 * record. Triggers announce every change that decides what a hostname serves on the
 * `hosted_sites` channel (payload: the site id), so every instance drops what it cached at once,
 * whichever code made the change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('build_files')
    .addColumn('build_id', 'text', (c) => c.notNull().references('builds.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('body', 'bytea', (c) => c.notNull())
    .addColumn('gzip', 'bytea', (c) => c.notNull())
    .addColumn('br', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('build_files_pkey', ['build_id', 'path'])
    .execute()

  await db.schema
    .createTable('site_passages')
    .addColumn('build_id', 'text', (c) => c.notNull().references('builds.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_passages_pkey', ['build_id', 'position'])
    .execute()

  await db.schema
    .createTable('site_backlinks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index site_backlinks_once on site_backlinks (site_id, source, target)`.execute(db)

  await sql`
    create function hosted_sites_notify() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'sites' then
        perform pg_notify('hosted_sites', coalesce(new.id, old.id));
      else
        perform pg_notify('hosted_sites', coalesce(new.site_id, old.site_id));
      end if;
      return null;
    end $$`.execute(db)
  await sql`create trigger sites_hosted_notify after update of live_build_id, status or delete on sites for each row execute function hosted_sites_notify()`.execute(
    db,
  )
  await sql`create trigger domains_hosted_notify after insert or update or delete on domains for each row execute function hosted_sites_notify()`.execute(
    db,
  )
  await sql`create trigger builds_hosted_notify after update of status on builds for each row execute function hosted_sites_notify()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger builds_hosted_notify on builds`.execute(db)
  await sql`drop trigger domains_hosted_notify on domains`.execute(db)
  await sql`drop trigger sites_hosted_notify on sites`.execute(db)
  await sql`drop function hosted_sites_notify()`.execute(db)
  await db.schema.dropTable('site_backlinks').execute()
  await db.schema.dropTable('site_passages').execute()
  await db.schema.dropTable('build_files').execute()
}
