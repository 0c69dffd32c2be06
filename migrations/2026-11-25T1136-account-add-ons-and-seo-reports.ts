import { type Kysely, sql } from 'kysely'

/**
 * Add-ons of the price list switched on per account (with a quantity where it counts), and
 * scheduled SEO reports: a report belongs to its site's period (a week or a month), at most one
 * per site and period, and records when its mail went out. The sales assistant of an account's
 * site needs the ai_sales_assistant add-on, which no account has yet: their sites' settings say so.
 * The weekly audit of every live site gives way to the reports of each plan's cadence.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`
  await db.schema
    .createTable('account_add_ons')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('add_on', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(1).check(sql`quantity between 1 and 10000`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('account_add_ons_pkey', ['account_id', 'add_on'])
    .execute()

  await db.schema.alterTable('site_audits').addColumn('period', 'text').execute()
  await db.schema.alterTable('site_audits').addColumn('mailed_at', 'timestamptz').execute()
  await db.schema.createIndex('site_audits_period').unique().on('site_audits').columns(['site_id', 'period']).execute()

  await sql`update sites set settings = settings || '{"assistant_included": false}'::jsonb where account_id is not null`.execute(db)
  await sql`delete from jobs where name = 'site.audit.weekly' and state = 'queued'`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update sites set settings = settings - 'assistant_included'`.execute(db)
  await db.schema.dropIndex('site_audits_period').ifExists().execute()
  await db.schema.alterTable('site_audits').dropColumn('mailed_at').execute()
  await db.schema.alterTable('site_audits').dropColumn('period').execute()
  await db.schema.dropTable('account_add_ons').ifExists().execute()
}
