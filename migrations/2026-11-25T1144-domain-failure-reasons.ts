import { type Kysely, sql } from 'kysely'

/**
 * Why a domain's verification failed, kept with the domain until the next check: no TXT record,
 * a record without the domain's value, a lookup that failed (naming the resolver), or the
 * hostname active on another site. Domains that failed before have no reason recorded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('failure_code', 'text', (c) => c.check(sql`failure_code in ('no_record', 'wrong_value', 'lookup_failed', 'hostname_taken')`))
    .addColumn('failure_detail', 'text')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropColumn('failure_code').dropColumn('failure_detail').execute()
}
