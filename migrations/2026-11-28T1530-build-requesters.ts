import { type Kysely, sql } from 'kysely'

/**
 * Who asked for a build (DESIGN.md 15: build lists say when and by whom): the person, API token
 * or agent of the audit record the request wrote in the same transaction, as page revisions take
 * it (2026-11-28T1400). A deferred trigger reads it at commit, whichever statement came first.
 * A build without an audit record (the platform's own, a scheduled one) names nobody.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table builds add column user_id text, add column token_id text, add column client_id text`.execute(db)
  await sql`create function build_requester() returns trigger language plpgsql as $$
    begin
      update builds b set user_id = a.user_id, token_id = a.token_id, client_id = a.client_id
        from audit_log a where b.id = new.id and a.id = nullif(current_setting('wps.audit_id', true), '');
      return null;
    end $$`.execute(db)
  await sql`create constraint trigger builds_requester after insert on builds deferrable initially deferred for each row execute function build_requester()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger builds_requester on builds`.execute(db)
  await sql`drop function build_requester()`.execute(db)
  await sql`alter table builds drop column user_id, drop column token_id, drop column client_id`.execute(db)
}
