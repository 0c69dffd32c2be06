import { type Kysely, sql } from 'kysely'

/**
 * Why a delivery, and each attempt of it, failed, as a code beside the error (the receiver's or the
 * network's own words, in English): the dashboard words the failure in the page's language from
 * the code. Rows written before are given theirs from the words they hold.
 */
const failureFrom = (status: string, error: string) => sql`case
  when ${sql.ref(error)} like 'plan_required%' then 'plan'
  when ${sql.ref(error)} like 'endpoint disabled%' then 'disabled'
  when ${sql.ref(status)} is not null then 'status'
  when ${sql.ref(error)} ~ 'could not be resolved|has no address' then 'dns'
  when ${sql.ref(error)} ~ 'No complete answer' then 'timeout'
  when ${sql.ref(error)} ~* 'redirect' then 'redirect'
  when ${sql.ref(error)} ~ 'resolves to|The host is|IP address' then 'address'
  else 'connection' end`

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries add column last_failure text`.execute(db)
  await sql`update webhook_deliveries set last_failure = ${failureFrom('last_status', 'last_error')} where last_error is not null`.execute(
    db,
  )
  await sql`alter table webhook_attempts add column failure text`.execute(db)
  await sql`update webhook_attempts set failure = ${failureFrom('status', 'error')} where error is not null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_attempts drop column failure`.execute(db)
  await sql`alter table webhook_deliveries drop column last_failure`.execute(db)
}
