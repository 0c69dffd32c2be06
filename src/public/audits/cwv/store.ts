import { sql } from 'kysely'
import type { Db } from '../../../infra/db.ts'
import { newId } from '../../../infra/crypto.ts'
import type { LookupData } from './field-data.ts'

export async function readCache<T>(db: Db, key: string, now: Date): Promise<{ body: T; expires_at: Date } | undefined> {
  const row = await db
    .selectFrom('cwv_cache')
    .select(['body', 'expires_at'])
    .where('cache_key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ? { body: row.body as T, expires_at: row.expires_at } : undefined
}

export async function writeCache(db: Db, key: string, body: unknown, expiresAt: Date): Promise<void> {
  const json = JSON.stringify(body)
  await db
    .insertInto('cwv_cache')
    .values({ cache_key: key, body: json, expires_at: expiresAt })
    .onConflict((oc) => oc.column('cache_key').doUpdateSet({ body: json, expires_at: expiresAt }))
    .execute()
}

/** Adds the domain to daily tracking; answers when it was first tracked. */
export async function trackDomain(db: Db, domain: string): Promise<Date> {
  await db
    .insertInto('cwv_tracked_domains')
    .values({ domain, last_snapshot_at: null })
    .onConflict((oc) => oc.column('domain').doNothing())
    .execute()
  const row = await db.selectFrom('cwv_tracked_domains').select('created_at').where('domain', '=', domain).executeTakeFirstOrThrow()
  return row.created_at
}

export async function isTracked(db: Db, domain: string): Promise<boolean> {
  return (await db.selectFrom('cwv_tracked_domains').select('domain').where('domain', '=', domain).executeTakeFirst()) !== undefined
}

export interface Snapshot {
  taken_on: string
  collection_period: LookupData['collection_period']
  form_factors: LookupData['form_factors']
}

/** One snapshot per domain and day; a second one the same day replaces the first. */
export async function saveSnapshot(db: Db, domain: string, takenOn: string, data: LookupData): Promise<void> {
  const snapshot = JSON.stringify({
    taken_on: takenOn,
    collection_period: data.collection_period,
    form_factors: data.form_factors,
  } satisfies Snapshot)
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('cwv_snapshots')
      .values({ id: newId('cwv'), domain, taken_on: takenOn, snapshot })
      .onConflict((oc) => oc.columns(['domain', 'taken_on']).doUpdateSet({ snapshot, created_at: sql`now()` } as never))
      .execute()
    await trx.updateTable('cwv_tracked_domains').set({ last_snapshot_at: new Date() }).where('domain', '=', domain).execute()
  })
}

export async function listSnapshots(db: Db, domain: string, limit = 400): Promise<Snapshot[]> {
  const rows = await db
    .selectFrom('cwv_snapshots')
    .select('snapshot')
    .where('domain', '=', domain)
    .orderBy('taken_on', 'asc')
    .limit(limit)
    .execute()
  return rows.map((r) => r.snapshot as Snapshot)
}

export async function hasSnapshotOn(db: Db, domain: string, takenOn: string): Promise<boolean> {
  const row = await db
    .selectFrom('cwv_snapshots')
    .select('id')
    .where('domain', '=', domain)
    .where('taken_on', '=', takenOn)
    .executeTakeFirst()
  return row !== undefined
}
