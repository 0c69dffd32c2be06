import { type Kysely, sql } from 'kysely'

/**
 * Idempotency keys belong to the credential that sent them, not to the whole account: another
 * member sending the same key and body must never be handed the first caller's answer (an API
 * token's secret among them). Stored answer bodies are sealed with the data key from now on; the
 * rows kept until now held them in plain text, so they are dropped (a key lives a day, and a
 * retry of one of them runs as a new request).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`delete from idempotency_keys`.execute(db)
  await sql`alter table idempotency_keys add column caller text not null`.execute(db)
  await sql`alter table idempotency_keys drop constraint idempotency_keys_pk`.execute(db)
  await sql`alter table idempotency_keys add constraint idempotency_keys_pk primary key (account_id, caller, key)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from idempotency_keys`.execute(db)
  await sql`alter table idempotency_keys drop constraint idempotency_keys_pk`.execute(db)
  await sql`alter table idempotency_keys drop column caller`.execute(db)
  await sql`alter table idempotency_keys add constraint idempotency_keys_pk primary key (account_id, key)`.execute(db)
}
