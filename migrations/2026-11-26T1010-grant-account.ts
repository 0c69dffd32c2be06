import { type Kysely, sql } from 'kysely'

/**
 * The account a person chose when letting an application (the consent page) or an agent (the
 * claim's verification page) act for them: a person may belong to several. It travels from the
 * authorization code or claim attempt to the refresh tokens of the grant, so a refresh acts for
 * the same account. Null on rows made before: the person's default account, as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['authorization_codes', 'refresh_tokens', 'claim_attempts']) {
    await sql`alter table ${sql.table(table)} add column account_id text references accounts(id) on delete cascade`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['authorization_codes', 'refresh_tokens', 'claim_attempts']) {
    await sql`alter table ${sql.table(table)} drop column account_id`.execute(db)
  }
}
