import { type Kysely, sql } from 'kysely'

/**
 * A lead's status (DESIGN.md 17): new until someone answers it or puts it away. The index serves
 * the Messages page's filter by status within a site.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table leads add column status text not null default 'new' check (status in ('new', 'answered', 'archived'))`.execute(db)
  await sql`create index leads_site_status_idx on leads (site_id, status, created_at desc)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists leads_site_status_idx`.execute(db)
  await sql`alter table leads drop column status`.execute(db)
}
