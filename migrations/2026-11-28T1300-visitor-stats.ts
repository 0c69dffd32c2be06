import { type Kysely, sql } from 'kysely'

/**
 * Visitor statistics without cookies (DESIGN.md 18), kept per site and UTC day.
 *
 * - `stats_salts`: one random salt per day, shared by every instance; a visitor of a day is a hash
 *   of it with the site, the client address and the user agent. A salt is deleted once its day is
 *   over, so the hashes of two days cannot be linked and no address can be found from them.
 * - `stats_seen`: the visitor hashes of the current day with what each was counted for (the day,
 *   a page, a referrer, a device...), so a visitor is counted once however many instances see them;
 *   deleted with the salt.
 * - `stats_days`: the totals of a site's day; `stats_items`: page views and visitors per page,
 *   referrer host, UTM source, medium and campaign, device class and browser family.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table stats_salts (day date primary key, salt text not null)`.execute(db)
  await sql`
    create table stats_seen (
      site_id text not null,
      day date not null,
      visitor text not null,
      kind text not null,
      value text not null,
      primary key (day, site_id, visitor, kind, value)
    )`.execute(db)
  await sql`
    create table stats_days (
      site_id text not null references sites(id) on delete cascade,
      day date not null,
      pageviews bigint not null default 0,
      visitors bigint not null default 0,
      conversions bigint not null default 0,
      primary key (site_id, day)
    )`.execute(db)
  await sql`
    create table stats_items (
      site_id text not null references sites(id) on delete cascade,
      day date not null,
      kind text not null,
      value text not null,
      pageviews bigint not null default 0,
      visitors bigint not null default 0,
      primary key (site_id, kind, day, value)
    )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['stats_items', 'stats_days', 'stats_seen', 'stats_salts']) await sql`drop table ${sql.table(table)}`.execute(db)
}
