import type { Selectable } from 'kysely'
import { newId, randomToken, safeEqual, sha256Hex } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { ApiTokensTable } from '../../infra/tables.ts'
import { changing } from './changes.ts'
import type { Paging } from '../paging.ts'

/** Scopes of /v1 (DESIGN.md 7). */
export const API_SCOPES = ['read:sites', 'write:pages', 'manage:leads', 'manage:webhooks', 'manage:tokens'] as const
export type ApiScope = (typeof API_SCOPES)[number]

export const ROTATION_GRACE_DEFAULT = 3600
export const ROTATION_GRACE_MAX = 86_400

/** Secrets read `wps_<token id>_<43 random characters>`: the id finds the row, the hash proves the rest. */
const SECRET = /^wps_(tok_[A-Za-z0-9_-]{22})_([A-Za-z0-9_-]{43})$/

export type ApiTokenRow = Selectable<ApiTokensTable>

export interface ApiToken {
  id: string
  /** The member who made it, whose role it acts with; null for a token the operator made. */
  user_id: string | null
  name: string
  scopes: ApiScope[]
  created_at: string
  expires_at: string | null
  last_used_at: string | null
}

export function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    scopes: row.scopes.split(' ').filter(Boolean) as ApiScope[],
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  }
}

/**
 * What a token's ETag is made of: what its owner sets (name, scopes, expiry) and which secret is
 * current, so a rotation changes the tag. Never the last-used time: using a token does not change
 * it, so a tag read once stays good for If-Match however often the token is used. The secret's
 * hash enters only through the tag's own one-way digest.
 */
export function apiTokenVersion(row: ApiTokenRow): unknown {
  return [row.id, row.name, row.scopes, row.created_at.toISOString(), row.expires_at?.toISOString() ?? null, row.secret_hash]
}

function newSecret(id: string): string {
  return `wps_${id}_${randomToken(32)}`
}

export interface NewApiToken {
  accountId: string
  /** The member who makes it; absent for a token the operator makes for the account. */
  userId?: string | null
  name: string
  scopes: readonly string[]
  expiresAt?: Date | null
}

/** Creates a token; the secret is returned here once and only its hash is kept. */
export async function createApiToken(db: Db, input: NewApiToken): Promise<{ token: ApiToken; secret: string; row: ApiTokenRow }> {
  const id = newId('tok')
  const secret = newSecret(id)
  const row = await db
    .insertInto('api_tokens')
    .values({
      id,
      account_id: input.accountId,
      user_id: input.userId ?? null,
      name: input.name,
      scopes: [...new Set(input.scopes)].join(' '),
      secret_hash: sha256Hex(secret),
      expires_at: input.expiresAt ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { token: toApiToken(row), secret, row }
}

/**
 * Whose tokens a member may see and manage: an owner every token of the account, anyone else only
 * their own (DESIGN.md 12). Undefined: all of them.
 */
export function tokenHolder(member: { role: string; userId: string | null }): string | undefined {
  return member.role === 'owner' ? undefined : (member.userId ?? undefined)
}

/**
 * Only the member who made a token may rotate it: a new secret acts as that member, so an owner
 * rotating another member's token would hold a secret that speaks for them in the audit log. An
 * owner may still revoke it. A token the operator made (no member) acts as an owner: any owner may rotate it.
 */
export function mayRotate(token: { user_id: string | null }, member: { userId: string | null }): boolean {
  return token.user_id === null || token.user_id === member.userId
}

export async function listApiTokens(
  db: Db,
  accountId: string,
  { limit, offset }: Paging,
  holder?: string,
): Promise<{ rows: ApiToken[]; total: number }> {
  let base = db.selectFrom('api_tokens').where('account_id', '=', accountId).where('revoked_at', 'is', null)
  if (holder) base = base.where('user_id', '=', holder)
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows: rows.map(toApiToken), total: Number(count.n) }
}

/** A live token of the account (of `holder` only, when given), locked for a change when `forUpdate`. */
export async function findApiToken(
  db: Db,
  accountId: string,
  id: string,
  forUpdate = false,
  holder?: string,
): Promise<ApiTokenRow | undefined> {
  let query = db
    .selectFrom('api_tokens')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
  if (holder) query = query.where('user_id', '=', holder)
  if (forUpdate) query = query.forUpdate()
  return query.executeTakeFirst()
}

/** Revokes a token; every reading of it cached in this process is stale from now on, and once the change commits. */
export async function revokeApiToken(db: Db, id: string): Promise<void> {
  await changing(db, [id], () => db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('id', '=', id).execute())
}

/**
 * One-click rotation: a new secret at once; the old one keeps working for `graceSeconds`
 * (0 ends it now). A secret replaced earlier and still in its grace period is dropped: at most
 * two secrets are valid at a time.
 */
export async function rotateApiToken(
  db: Db,
  id: string,
  graceSeconds: number,
): Promise<{ token: ApiToken; secret: string; row: ApiTokenRow }> {
  const secret = newSecret(id)
  const row = await changing(db, [id], () =>
    db
      .updateTable('api_tokens')
      .set((eb) => ({
        previous_secret_hash: graceSeconds > 0 ? eb.ref('secret_hash') : null,
        previous_expires_at: graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null,
        secret_hash: sha256Hex(secret),
      }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  )
  return { token: toApiToken(row), secret, row }
}

export type SecretCheck = { ok: true; token: ApiTokenRow } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' }

export function looksLikeApiToken(value: string): boolean {
  return value.startsWith('wps_')
}

/** The token id inside a presented secret, or undefined when it is not shaped like one of ours. */
export function apiTokenIdOf(presented: string): string | undefined {
  return SECRET.exec(presented)?.[1]
}

/**
 * Checks a presented secret against its token row: the hash is compared in constant time with the
 * current secret and, within its grace period, the rotated-out one. Unknown and wrong secrets are
 * told apart only in the log.
 */
export function checkApiToken(row: ApiTokenRow | undefined, presented: string, now = new Date()): SecretCheck {
  if (!row) return { ok: false, reason: 'unknown' }
  const hash = sha256Hex(presented)
  const current = safeEqual(hash, row.secret_hash)
  const previous =
    row.previous_secret_hash !== null &&
    safeEqual(hash, row.previous_secret_hash) &&
    row.previous_expires_at !== null &&
    row.previous_expires_at > now
  if (!current && !previous) return { ok: false, reason: 'unknown' }
  if (row.revoked_at) return { ok: false, reason: 'revoked' }
  if (row.expires_at && row.expires_at <= now) return { ok: false, reason: 'expired' }
  return { ok: true, token: row }
}

/** Records when tokens were last used, many at once (written in batches, not per request). */
export async function touchApiTokens(db: Db, usedAt: Map<string, Date>): Promise<void> {
  for (const [id, at] of usedAt) {
    await db
      .updateTable('api_tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute()
  }
}
