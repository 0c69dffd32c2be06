import { type Kysely, sql } from 'kysely'

/**
 * How many items each account's media library holds (removed ones left out), kept by a trigger as
 * items come, are removed, come back or go: the library's first page reads the total from one row
 * instead of counting every item, so it costs the same for 100 items as for 10,000. A decrement
 * only updates: when the account itself is erased, its row may already be gone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table media_counts (
      account_id text primary key references accounts(id) on delete cascade,
      live integer not null check (live >= 0)
    )`.execute(db)
  await sql`create function media_count() returns trigger language plpgsql as $$
    declare
      delta integer := case
        when tg_op = 'INSERT' then case when new.deleted_at is null then 1 else 0 end
        when tg_op = 'DELETE' then case when old.deleted_at is null then -1 else 0 end
        else (case when new.deleted_at is null then 1 else 0 end) - (case when old.deleted_at is null then 1 else 0 end)
      end;
      account text := case when tg_op = 'DELETE' then old.account_id else new.account_id end;
    begin
      if delta > 0 then
        insert into media_counts (account_id, live) values (account, delta)
          on conflict (account_id) do update set live = media_counts.live + excluded.live;
      elsif delta < 0 then
        update media_counts set live = live + delta where account_id = account;
      end if;
      return null;
    end $$`.execute(db)
  await sql`create trigger media_count after insert or delete or update of deleted_at on media for each row execute function media_count()`.execute(
    db,
  )
  await sql`insert into media_counts (account_id, live)
    select account_id, count(*) from media where deleted_at is null group by account_id`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger media_count on media`.execute(db)
  await sql`drop function media_count()`.execute(db)
  await sql`drop table media_counts`.execute(db)
}
