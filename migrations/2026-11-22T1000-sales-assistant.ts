import { type Kysely, sql } from 'kysely'

/** Sites (which own the sales assistant), their leads, and the assistant's sessions, transcript, turns and events. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Accounts live in the identity room; no foreign key so the rooms stay independent.
    .addColumn('account_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('live').check(sql`status in ('draft', 'live', 'suspended')`))
    .addColumn('default_locale', 'text', (c) => c.notNull().defaultTo('en').check(sql`default_locale in ('de', 'en', 'fr')`))
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create index sites_account on sites (account_id) where account_id is not null`.execute(db)

  await db.schema
    .createTable('leads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    // The assistant session the lead came from; cut (set null) when that session is erased.
    .addColumn('session_id', 'text')
    .addColumn('email_sealed', 'text', (c) => c.notNull())
    .addColumn('name_sealed', 'text')
    .addColumn('note_sealed', 'text')
    // SHA-256 of (session, email): a repeated submission is recognised without keeping the email in clear.
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('consent_version', 'text', (c) => c.notNull())
    .addColumn('consent_digest', 'text', (c) => c.notNull())
    .addColumn('consent_locale', 'text', (c) => c.notNull())
    .addColumn('consent_accepted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index leads_dedupe on leads (site_id, dedupe_key)`.execute(db)
  await sql`create index leads_site_created on leads (site_id, created_at desc)`.execute(db)
  await sql`create index leads_session on leads (session_id) where session_id is not null`.execute(db)

  await db.schema
    .createTable('agent_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('locale', 'text', (c) => c.notNull().check(sql`locale in ('de', 'en', 'fr')`))
    .addColumn('handoff_state', 'text', (c) =>
      c.notNull().defaultTo('none').check(sql`handoff_state in ('none', 'requested', 'active', 'resolved')`),
    )
    .addColumn('handoff_updated_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_active_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create index agent_sessions_site on agent_sessions (site_id)`.execute(db)
  await sql`create index agent_sessions_handoff on agent_sessions (site_id, handoff_updated_at) where handoff_state in ('requested', 'active')`.execute(
    db,
  )
  await sql`create index agent_sessions_last_active on agent_sessions (last_active_at)`.execute(db)

  await db.schema
    .createTable('agent_messages')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('session_id', 'text', (c) => c.notNull().references('agent_sessions.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('visitor', 'assistant', 'operator')`))
    .addColumn('text_sealed', 'text', (c) => c.notNull())
    .addColumn('turn_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create index agent_messages_session on agent_messages (session_id, id)`.execute(db)

  await db.schema
    .createTable('agent_turns')
    .addColumn('session_id', 'text', (c) => c.notNull().references('agent_sessions.id').onDelete('cascade'))
    .addColumn('turn_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('processing', 'done')`))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    // The serialised 200 body, replayed byte for byte to a repeat of the same turn.
    .addColumn('response', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .addPrimaryKeyConstraint('agent_turns_pk', ['session_id', 'turn_id'])
    .execute()

  await db.schema
    .createTable('agent_events')
    .addColumn('session_id', 'text', (c) => c.notNull().references('agent_sessions.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('first_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('agent_events_pk', ['session_id', 'type'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_events').execute()
  await db.schema.dropTable('agent_turns').execute()
  await db.schema.dropTable('agent_messages').execute()
  await db.schema.dropTable('agent_sessions').execute()
  await db.schema.dropTable('leads').execute()
  await db.schema.dropTable('sites').execute()
}
