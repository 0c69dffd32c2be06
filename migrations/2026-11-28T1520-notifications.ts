import { type Kysely, sql } from 'kysely'

/**
 * Mail to the account's owners and editors when visitors write (DESIGN.md 17).
 *
 * notices: one row per new contact-form message, assistant lead or request for a person; the mail
 * at once is sent from it by a job, and the daily digest collects the rows of a day. It holds no
 * personal data itself: the message stays sealed in its lead or transcript.
 *
 * notification_settings: a person's choice per account and kind (instant, digest, none); no row
 * means at once. digest_since is where the next digest starts; unsubscribed_at says a mail's
 * link set it to none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table notices (
    id text primary key,
    account_id text not null references accounts(id) on delete cascade,
    site_id text not null references sites(id) on delete cascade,
    kind text not null check (kind in ('contact_form', 'assistant_lead', 'handoff')),
    lead_id text references leads(id) on delete cascade,
    session_id text references agent_sessions(id) on delete cascade,
    created_at timestamptz not null default now()
  )`.execute(db)
  await sql`create index notices_account_created_idx on notices (account_id, created_at)`.execute(db)
  await sql`create table notification_settings (
    user_id text not null references users(id) on delete cascade,
    account_id text not null references accounts(id) on delete cascade,
    kind text not null check (kind in ('contact_form', 'assistant_lead', 'handoff')),
    delivery text not null check (delivery in ('instant', 'digest', 'none')),
    digest_since timestamptz,
    unsubscribed_at timestamptz,
    updated_at timestamptz not null default now(),
    primary key (user_id, account_id, kind)
  )`.execute(db)
  await sql`create index notification_settings_digest_idx on notification_settings (delivery) where delivery = 'digest'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table notification_settings`.execute(db)
  await sql`drop table notices`.execute(db)
}
