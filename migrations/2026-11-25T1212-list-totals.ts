import { type Kysely, sql } from 'kysely'

/**
 * Lists whose cost does not grow with the account's data.
 *
 * - An account's sites are read in their list order (created_at, id) from an index, so page 1 of
 *   10,000 sites reads 20 index entries instead of sorting all of them.
 * - The totals of the list envelope come from counts kept by triggers in the writing transaction:
 *   the sites of each account, and the audit records of each account per UTC day. A count(*)
 *   over a million audit records took hundreds of milliseconds; the day counts are at most a few
 *   rows a day, and a list filtered by time counts only its partial first and last day row by row.
 *   Day counts are split over a few rows by the writing connection (`shard`), so concurrent
 *   changes of one account do not queue for one counter row until they commit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index sites_account_order on sites (account_id, created_at, id) where account_id is not null`.execute(db)
  await sql`drop index sites_account`.execute(db)

  await sql`create table account_site_counts (account_id text primary key, sites integer not null)`.execute(db)
  await sql`insert into account_site_counts (account_id, sites) select account_id, count(*) from sites where account_id is not null group by account_id`.execute(
    db,
  )
  await sql`
    create function account_site_counts_change() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.account_id is not null then
        update account_site_counts set sites = sites - 1 where account_id = old.account_id;
      end if;
      if tg_op in ('UPDATE', 'INSERT') and new.account_id is not null then
        insert into account_site_counts (account_id, sites) values (new.account_id, 1)
        on conflict (account_id) do update set sites = account_site_counts.sites + 1;
      end if;
      return null;
    end $$`.execute(db)
  await sql`create trigger sites_counted after insert or delete or update of account_id on sites for each row execute function account_site_counts_change()`.execute(
    db,
  )

  await sql`create table audit_log_days (account_id text not null, day date not null, shard smallint not null, calls bigint not null, primary key (account_id, day, shard))`.execute(
    db,
  )
  await sql`insert into audit_log_days (account_id, day, shard, calls) select account_id, ("at" at time zone 'UTC')::date, 0, count(*) from audit_log group by 1, 2`.execute(
    db,
  )
  await sql`
    create function audit_log_days_add() returns trigger language plpgsql as $$
    begin
      insert into audit_log_days (account_id, day, shard, calls)
      select account_id, ("at" at time zone 'UTC')::date, pg_backend_pid() % 16, count(*) from added group by 1, 2 order by 1, 2
      on conflict (account_id, day, shard) do update set calls = audit_log_days.calls + excluded.calls;
      return null;
    end $$`.execute(db)
  // Removals are counted on shard -1; a day whose records are all gone loses its rows.
  await sql`
    create function audit_log_days_remove() returns trigger language plpgsql as $$
    begin
      insert into audit_log_days (account_id, day, shard, calls)
      select account_id, ("at" at time zone 'UTC')::date, -1, -count(*) from removed group by 1, 2 order by 1, 2
      on conflict (account_id, day, shard) do update set calls = audit_log_days.calls + excluded.calls;
      delete from audit_log_days d using (
        select t.account_id, t.day from audit_log_days t
        where (t.account_id, t.day) in (select distinct account_id, ("at" at time zone 'UTC')::date from removed)
        group by 1, 2 having sum(t.calls) = 0
      ) empty
      where d.account_id = empty.account_id and d.day = empty.day;
      return null;
    end $$`.execute(db)
  await sql`create function audit_log_days_clear() returns trigger language plpgsql as $$ begin truncate audit_log_days; return null; end $$`.execute(
    db,
  )
  await sql`create trigger audit_log_counted_insert after insert on audit_log referencing new table as added for each statement execute function audit_log_days_add()`.execute(
    db,
  )
  await sql`create trigger audit_log_counted_delete after delete on audit_log referencing old table as removed for each statement execute function audit_log_days_remove()`.execute(
    db,
  )
  await sql`create trigger audit_log_counted_truncate after truncate on audit_log for each statement execute function audit_log_days_clear()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger audit_log_counted_truncate on audit_log`.execute(db)
  await sql`drop trigger audit_log_counted_delete on audit_log`.execute(db)
  await sql`drop trigger audit_log_counted_insert on audit_log`.execute(db)
  await sql`drop function audit_log_days_clear()`.execute(db)
  await sql`drop function audit_log_days_remove()`.execute(db)
  await sql`drop function audit_log_days_add()`.execute(db)
  await sql`drop table audit_log_days`.execute(db)
  await sql`drop trigger sites_counted on sites`.execute(db)
  await sql`drop function account_site_counts_change()`.execute(db)
  await sql`drop table account_site_counts`.execute(db)
  await sql`create index sites_account on sites (account_id) where account_id is not null`.execute(db)
  await sql`drop index sites_account_order`.execute(db)
}
