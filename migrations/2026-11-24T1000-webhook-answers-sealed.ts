import { type Kysely, sql } from 'kysely'

/**
 * The answer excerpts kept with webhook attempts are sealed from now on: a receiver may echo the
 * payload, personal data included. Excerpts stored before were kept in clear and cannot be sealed
 * here (the keys are not the database's), so they are dropped; the attempts themselves stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update webhook_attempts set response = null where response is not null`.execute(db)
}

export async function down(): Promise<void> {
  // The dropped excerpts cannot be brought back; sealed ones stay readable with the keyring.
}
