import { type Kysely, sql } from 'kysely'

/**
 * Page history (DESIGN.md 19): a revision of a page for every transaction that changes the page or
 * its blocks, whichever interface made it. Deferred triggers take the snapshot at commit, once per
 * page and transaction, so a change of several blocks (a move shifts the ones between) is one
 * revision showing the page as it was committed. Who and what come from the audit record the
 * change wrote in the same transaction (every change on an account's data writes one): an insert
 * into audit_log names its record in a transaction-local setting, which the snapshot reads.
 *
 * No foreign key to pages: its check would take a share lock on the page row at commit, while a
 * change of the page's blocks holding that row's lock waits for a block this commit holds (a
 * deadlock). A page's revisions go with it by a trigger instead.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table page_revisions (
    id text primary key,
    seq bigint generated always as identity,
    page_id text not null,
    tx bigint not null,
    created_at timestamptz not null default clock_timestamp(),
    user_id text,
    token_id text,
    client_id text,
    operation text,
    snapshot jsonb not null
  )`.execute(db)
  await sql`create unique index page_revisions_page_tx on page_revisions (page_id, tx)`.execute(db)
  await sql`create index page_revisions_page_seq on page_revisions (page_id, seq desc)`.execute(db)

  await sql`create function audit_log_names_change() returns trigger language plpgsql as $$
    begin
      perform set_config('wps.audit_id', (select max(id) from added), true);
      return null;
    end $$`.execute(db)
  await sql`create trigger audit_log_named after insert on audit_log referencing new table as added for each statement execute function audit_log_names_change()`.execute(
    db,
  )

  await sql`create function page_revision_take(target text) returns void language plpgsql as $$
    declare
      who record;
    begin
      if target is null or exists (select 1 from page_revisions where page_id = target and tx = txid_current()) then return; end if;
      select a.user_id, a.token_id, a.client_id, a.operation into who from audit_log a where a.id = nullif(current_setting('wps.audit_id', true), '');
      insert into page_revisions (id, page_id, tx, user_id, token_id, client_id, operation, snapshot)
      select 'rev_' || replace(gen_random_uuid()::text, '-', ''), p.id, txid_current(), who.user_id, who.token_id, who.client_id, who.operation,
        jsonb_build_object('path', p.path, 'locale', p.locale, 'title', p.title, 'description', p.description,
          'blocks', coalesce((select jsonb_agg(jsonb_build_object('id', b.id, 'type', b.type, 'position', b.position, 'content', b.content) order by b.position)
            from blocks b where b.page_id = p.id), '[]'::jsonb))
      from pages p where p.id = target
      on conflict (page_id, tx) do nothing;
    end $$`.execute(db)
  await sql`create function pages_revised() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'DELETE' then perform page_revision_take(new.id); end if;
      return null;
    end $$`.execute(db)
  await sql`create function blocks_revised() returns trigger language plpgsql as $$
    begin
      perform page_revision_take(case when tg_op = 'DELETE' then old.page_id else new.page_id end);
      return null;
    end $$`.execute(db)
  await sql`create function page_revisions_forget() returns trigger language plpgsql as $$
    begin
      delete from page_revisions where page_id = old.id;
      return null;
    end $$`.execute(db)
  await sql`create trigger pages_forget_revisions after delete on pages for each row execute function page_revisions_forget()`.execute(db)
  await sql`create constraint trigger pages_revised after insert or update on pages deferrable initially deferred for each row execute function pages_revised()`.execute(
    db,
  )
  await sql`create constraint trigger blocks_revised after insert or update or delete on blocks deferrable initially deferred for each row execute function blocks_revised()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger blocks_revised on blocks`.execute(db)
  await sql`drop trigger pages_revised on pages`.execute(db)
  await sql`drop trigger pages_forget_revisions on pages`.execute(db)
  await sql`drop function page_revisions_forget()`.execute(db)
  await sql`drop trigger audit_log_named on audit_log`.execute(db)
  await sql`drop function blocks_revised()`.execute(db)
  await sql`drop function pages_revised()`.execute(db)
  await sql`drop function page_revision_take(text)`.execute(db)
  await sql`drop function audit_log_names_change()`.execute(db)
  await sql`drop table page_revisions`.execute(db)
}
