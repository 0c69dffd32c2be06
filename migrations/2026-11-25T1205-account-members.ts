import { type Kysely, sql } from 'kysely'

/**
 * Teams: an account has members (people) with a role, owner, editor or viewer; a person may
 * belong to several accounts. Each account's person so far becomes its owner. Invitations are
 * kept with the hash of their link's secret only. A browser session remembers the account its
 * person chose. API tokens and audit records name the member who made or acted: the tokens made
 * so far belong to their account's person.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`
  await db.schema
    .createTable('account_members')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'editor', 'viewer')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('account_members_pkey', ['account_id', 'user_id'])
    .execute()
  await db.schema.createIndex('account_members_user').on('account_members').column('user_id').execute()
  await sql`insert into account_members (account_id, user_id, role, created_at) select account_id, id, 'owner', created_at from users`.execute(
    db,
  )

  await db.schema
    .createTable('account_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email_hash', 'text', (c) => c.notNull())
    .addColumn('email_sealed', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'editor', 'viewer')`))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('accepted_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('withdrawn_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('account_invitations_account').on('account_invitations').columns(['account_id', 'created_at']).execute()

  await db.schema
    .alterTable('web_sessions')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .execute()
  await db.schema
    .alterTable('api_tokens')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .execute()
  await sql`update api_tokens t set user_id = (select u.id from users u where u.account_id = t.account_id order by u.created_at, u.id limit 1)`.execute(
    db,
  )
  await db.schema.alterTable('audit_log').addColumn('user_id', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('user_id').execute()
  await db.schema.alterTable('api_tokens').dropColumn('user_id').execute()
  await db.schema.alterTable('web_sessions').dropColumn('account_id').execute()
  await db.schema.dropTable('account_invitations').ifExists().execute()
  await db.schema.dropTable('account_members').ifExists().execute()
}
