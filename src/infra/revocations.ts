import type { Db } from './db.ts'

/**
 * The denylist of access tokens that every instance shares (table `revoked_tokens`): single
 * tokens by jti, and groups of tokens by the token's `revocation_group`.
 *
 * The bearer guard asks it on every request. A token found clean is not asked about again for
 * one second: an agent's calls come in bursts with one token, and a query per call was the
 * largest single cost of a /mcp call. So a revocation made elsewhere reaches this instance
 * within a second (like a revoked API token's cached row); one made by this process is seen at
 * once, since `denyJtis` and `revocationsChanged` drop every remembered answer.
 */
const CLEAN_FRESH_MS = 1000
const CLEAN_MAX = 10_000
const recentlyClean = new Map<string, number>()
/** Bumped by every local revocation: a check that began before it may not store its answer. */
let generation = 0

/** Forgets every remembered clean answer; call it after a transaction that revoked tokens commits. */
export function revocationsChanged(): void {
  generation++
  recentlyClean.clear()
}

const cleanKey = (jti: string, group?: string) => (group === undefined ? jti : `${jti} ${group}`)

/** Whether the token was found off the denylist within the last second: `isRevoked` would answer false without asking. */
export function knownClean(jti: string, group?: string, now = Date.now()): boolean {
  const checkedAt = recentlyClean.get(cleanKey(jti, group))
  return checkedAt !== undefined && now - checkedAt < CLEAN_FRESH_MS
}

/** Whether the token `jti` (of the revocation `group`, if any) is on the denylist. */
export async function isRevoked(db: Db, jti: string, group?: string, now = Date.now()): Promise<boolean> {
  const key = cleanKey(jti, group)
  const checkedAt = recentlyClean.get(key)
  if (checkedAt !== undefined && now - checkedAt < CLEAN_FRESH_MS) return false

  const started = generation
  const keys = group === undefined ? [jti] : [jti, group]
  const found = await db.selectFrom('revoked_tokens').select('jti').where('jti', 'in', keys).executeTakeFirst()
  if (found) return true
  if (started === generation) {
    if (recentlyClean.size >= CLEAN_MAX) recentlyClean.clear()
    recentlyClean.set(key, now)
  }
  return false
}

/** Adds jtis (or revocation groups) to the denylist; idempotent. */
export async function denyJtis(db: Db, entries: Array<{ jti: string; expiresAt: Date }>): Promise<void> {
  const live = entries.filter((e) => e.expiresAt.getTime() > Date.now())
  if (!live.length) return
  await db
    .insertInto('revoked_tokens')
    .values(live.map((e) => ({ jti: e.jti, expires_at: e.expiresAt })))
    .onConflict((oc) => oc.column('jti').doNothing())
    .execute()
  // Once the row is written: answers stored before are dropped, checks still in flight store none.
  revocationsChanged()
}
