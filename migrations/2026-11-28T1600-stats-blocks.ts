import { type Kysely, sql } from 'kysely'

/**
 * Visitor statistics of long spans read fast (DESIGN.md 18): the daily rows of `stats_items`
 * summed over aligned blocks of 2, 4, … 256 days (`level` 1 to 8; a block of level L starts on a
 * day whose number since 1970-01-01 is a multiple of 2^L). A span is read as at most two blocks of
 * each size and the days left over, so 90 days of a busy site read about a tenth of its daily rows.
 * `stats_rolled` says up to which day a site's blocks are complete; days after it are read from
 * the daily rows, so a block is only ever made of days that are over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table stats_item_blocks (
      site_id text not null references sites(id) on delete cascade,
      kind text not null,
      level smallint not null check (level between 1 and 8),
      start date not null,
      value text not null,
      pageviews bigint not null default 0,
      visitors bigint not null default 0,
      primary key (site_id, kind, level, start, value)
    )`.execute(db)
  await sql`
    create table stats_rolled (
      site_id text primary key references sites(id) on delete cascade,
      through date not null
    )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table stats_rolled`.execute(db)
  await sql`drop table stats_item_blocks`.execute(db)
}
