import { sql, type Selectable } from 'kysely'
import type { Keyring } from '../infra/crypto.ts'
import type { Db } from '../infra/db.ts'
import type { IdempotencyKeysTable } from '../infra/tables.ts'

/** Keys are kept a day (DESIGN.md 7); an older key counts as unused. */
export const KEY_TTL_MS = 24 * 3600_000
/** A request still processing this long after it began is taken to have died with its process. */
export const LEASE_MS = 60_000

export type StoredKey = Selectable<IdempotencyKeysTable>

/**
 * Whose keys these are: the account and the credential that sent them (an API token's id, or the
 * person or agent an OAuth token speaks for). Another member's key with the same body is a new key.
 */
export interface KeyOwner {
  accountId: string
  caller: string
}

/** Stored bodies may hold a secret shown once (a new API token, a webhook's signing secret): sealed at rest, bound to their key. */
const bodyContext = (owner: KeyOwner, key: string) => `idempotency_keys.body:${owner.accountId}:${owner.caller}:${key}`

export function openStoredBody(keyring: Keyring, owner: KeyOwner, key: string, sealed: string): string {
  return keyring.open(sealed, bodyContext(owner, key))
}

/**
 * Takes a key for a request: a new key, an expired one, or one whose request died (lease over,
 * same body) is claimed in one statement. Otherwise the stored row is returned for the caller to
 * replay or refuse.
 */
export async function claimKey(
  db: Db,
  owner: KeyOwner,
  key: string,
  requestHash: string,
  now = Date.now(),
): Promise<{ claimed: true } | { claimed: false; stored: StoredKey | undefined }> {
  const leaseUntil = new Date(now + LEASE_MS)
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      account_id: owner.accountId,
      caller: owner.caller,
      key,
      request_hash: requestHash,
      state: 'processing',
      lease_until: leaseUntil,
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'caller', 'key'])
        .doUpdateSet({
          request_hash: requestHash,
          state: 'processing',
          lease_until: leaseUntil,
          status: null,
          headers: null,
          body: null,
          created_at: sql`now()`,
        } as never)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', new Date(now - KEY_TTL_MS)),
            eb.and([
              eb('idempotency_keys.state', '=', 'processing'),
              eb('idempotency_keys.lease_until', '<', new Date(now)),
              eb('idempotency_keys.request_hash', '=', requestHash),
            ]),
          ]),
        ),
    )
    .returning('key')
    .executeTakeFirst()
  if (claimed) return { claimed: true }
  const stored = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .where('caller', '=', owner.caller)
    .where('key', '=', key)
    .executeTakeFirst()
  return { claimed: false, stored }
}

export async function storeAnswer(
  db: Db,
  keyring: Keyring,
  owner: KeyOwner,
  key: string,
  answer: { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  const body = keyring.seal(answer.body, bodyContext(owner, key))
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status: answer.status, headers: JSON.stringify(answer.headers), body })
    .where('account_id', '=', owner.accountId)
    .where('caller', '=', owner.caller)
    .where('key', '=', key)
    .execute()
}

/** A request that failed on our side leaves no trace, so the client may simply retry. */
export async function releaseKey(db: Db, owner: KeyOwner, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', owner.accountId)
    .where('caller', '=', owner.caller)
    .where('key', '=', key)
    .where('state', '=', 'processing')
    .execute()
}

export async function purgeIdempotencyKeys(db: Db, now = Date.now()): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now - KEY_TTL_MS))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
