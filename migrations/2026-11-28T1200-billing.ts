import { type Kysely, sql } from 'kysely'

/**
 * Self-serve billing with Stripe (DESIGN.md 16). `account_billing` keeps, per account, the Stripe
 * customer and subscription and the state last read back from the subscription (status, interval,
 * period end, a downgrade booked for the period's end, whether it cancels then, since when a payment is overdue), and whether
 * the operator set the plan by hand (`manual`: Stripe's events then leave the plan alone).
 * `stripe_events` holds the id of every event handled, so each is handled once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`
  await db.schema
    .createTable('account_billing')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('manual', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('customer_id', 'text')
    .addColumn('subscription_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('plan', 'text')
    .addColumn('interval', 'text')
    .addColumn('add_ons', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('scheduled', 'jsonb')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('past_due_since', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute()
  await db.schema.createIndex('account_billing_customer').unique().on('account_billing').column('customer_id').execute()
  await db.schema.createIndex('account_billing_subscription').on('account_billing').column('subscription_id').execute()
  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stripe_events').ifExists().execute()
  await db.schema.dropTable('account_billing').ifExists().execute()
}
