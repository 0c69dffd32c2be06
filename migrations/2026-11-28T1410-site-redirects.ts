import { type Kysely, sql } from 'kysely'

/**
 * Redirects of a site (DESIGN.md 19): an address of the site that sends visitors elsewhere, with
 * 301 or 302. Added by hand or when a published page moves. A change notifies the `hosted_sites`
 * channel like a domain, so every instance's front door answers it at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table site_redirects (
    id text primary key,
    site_id text not null references sites(id) on delete cascade,
    from_path text not null,
    to_target text not null,
    status int not null check (status in (301, 302)),
    created_at timestamptz not null default now()
  )`.execute(db)
  await sql`create unique index site_redirects_site_from on site_redirects (site_id, from_path)`.execute(db)
  await sql`create trigger site_redirects_hosted_notify after insert or update or delete on site_redirects for each row execute function hosted_sites_notify()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table site_redirects`.execute(db)
}
