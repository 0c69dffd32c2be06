import { type Kysely, sql } from 'kysely'

/**
 * What GraphQL needs of the database:
 * - every stored event is announced on the channel `events` as "<account id> <event id>" when its
 *   transaction commits, so each instance can stream it to that account's subscriptions;
 * - automatic persisted queries are kept by their SHA-256, so a hash registered through one
 *   instance runs on every other one (and behind a CDN).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('events', new.account_id || ' ' || new.id);
      return null;
    end
    $$
  `.execute(db)
  await sql`create trigger events_notify after insert on events for each row execute function events_notify()`.execute(db)

  await db.schema
    .createTable('graphql_persisted_queries')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('used_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('graphql_persisted_queries_used').on('graphql_persisted_queries').column('used_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('graphql_persisted_queries').ifExists().execute()
  await sql`drop trigger if exists events_notify on events`.execute(db)
  await sql`drop function if exists events_notify()`.execute(db)
}
