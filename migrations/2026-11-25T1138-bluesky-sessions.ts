import type { Kysely } from 'kysely'

/**
 * A Bluesky account's session (access and refresh JWTs, sealed) is kept with the account, so
 * every post and every instance reuses it instead of calling createSession, which Bluesky limits
 * per account; it is refreshed when the access JWT expires.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('social_accounts').addColumn('session_sealed', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('social_accounts').dropColumn('session_sealed').execute()
}
