import { sql } from 'kysely'
import { sha256Hex } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { ApiTokenRow } from './api-tokens.ts'
import type { Role } from './members.ts'
import { PLANS, type Plan } from './plans.ts'
import { apiAllows, planEntitlements } from './entitlements.ts'

/**
 * REST access and hourly budgets by plan, as the price list gives them (DESIGN.md 6 and 7): free
 * and lite have no access, plus reads only. Any account may carry an individual budget
 * (accounts.quota_override), which the admin CLI sets.
 */
export const PLAN_ACCESS: Record<Plan, { access: 'none' | 'read' | 'read_write'; perHour: number }> = Object.fromEntries(
  PLANS.map((plan) => [plan, { access: planEntitlements(plan).apiAccess, perHour: planEntitlements(plan).apiRequestsPerHour }]),
) as Record<Plan, { access: 'none' | 'read' | 'read_write'; perHour: number }>

export const WINDOW_SECONDS = 3600

export function hourlyLimit(plan: Plan, override: number | null): number {
  return override ?? PLAN_ACCESS[plan].perHour
}

export function allows(plan: Plan, access: 'read' | 'write'): boolean {
  return apiAllows(plan, access)
}

/** The start of the fixed hourly window `now` falls in. */
export function windowStart(now: number): Date {
  return new Date(Math.floor(now / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000)
}

export interface Charge {
  plan: Plan
  limit: number
  /** Requests counted in this window, this one included. */
  used: number
  /** When the window ends. */
  resetAt: Date
  /** The account is suspended for its deletion (DESIGN.md 19): its credentials answer nothing until it is restored. */
  suspended: boolean
}

export type ChargeRow = { plan: Plan | null; quota_override: number | null; used: number | null; suspended: boolean | null }

function chargeOfRow(row: ChargeRow | undefined, start: Date): Charge | undefined {
  if (!row?.plan || row.used === null) return undefined
  return {
    plan: row.plan,
    limit: hourlyLimit(row.plan, row.quota_override),
    used: row.used,
    resetAt: new Date(start.getTime() + WINDOW_SECONDS * 1000),
    suspended: row.suspended === true,
  }
}

/**
 * Counts one request against the account's hour (the caller's `account` relation names the
 * account to charge, with its plan): the counter lives in the database, so every instance shares
 * it and a restart keeps it. The count commits without waiting for the WAL flush
 * (synchronous_commit off for this statement only): every call of an account updates one row, so
 * waiting for the disk would queue them all; a crash can forget the last few counts.
 */
const counting = (start: Date, count = 1) => sql`
    counted as (
      insert into api_quota (account_id, window_start, used)
      select id, ${start}, ${count} from account
      on conflict (account_id, window_start) do update set used = api_quota.used + ${count}
      returning used
    )`

/** Charges a call made with an account's OAuth access token. Undefined when the account does not exist (any more). */
export async function chargeRequest(db: Db, accountId: string, now = Date.now()): Promise<Charge | undefined> {
  const start = windowStart(now)
  return chargeOfRow(await addRequests(db, accountId, start, 1), start)
}

/**
 * Adds `count` requests to an account's counter of the window starting at `start`; the total with
 * the account's plan, or undefined when the account does not exist or was erased (a tally flushed
 * after the erase must not leave a row of it behind).
 */
export async function addRequests(db: Db, accountId: string, start: Date, count: number): Promise<ChargeRow | undefined> {
  const result = await sql<ChargeRow>`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    account as (
      select id, plan, quota_override, deletion_requested_at is not null as suspended from accounts, relaxed
      where id = ${accountId} and erased_at is null
    ),
    ${counting(start, count)}
    select account.plan, account.quota_override, counted.used, account.suspended from account, counted`.execute(db)
  return result.rows[0]
}

/**
 * Reads a presented API token and charges its account in one round trip. The account is charged
 * only when the token is live and the secret's hash matches one of its hashes; the caller still
 * decides with `checkApiToken` (constant-time, with the reason for the log), so this gate only
 * keeps a wrong secret from spending an account's hour. `charge` is undefined when nothing was
 * charged. `role` is the role of the member who made the token (null when they left the account).
 */
export async function chargeApiToken(
  db: Db,
  tokenId: string,
  presented: string,
  now = Date.now(),
): Promise<{ token: ApiTokenRow | undefined; charge: Charge | undefined; role: Role | null }> {
  const start = windowStart(now)
  const hash = sha256Hex(presented)
  const result = await sql<ApiTokenRow & ChargeRow & { member_role: Role | null }>`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    token as (select * from api_tokens where id = ${tokenId}),
    account as (
      select a.id, a.plan, a.quota_override, a.deletion_requested_at is not null as suspended from accounts a, token, relaxed
      where a.id = token.account_id and token.revoked_at is null and (token.expires_at is null or token.expires_at > now())
        and (token.secret_hash = ${hash} or (token.previous_secret_hash = ${hash} and token.previous_expires_at > now()))
    ),
    ${counting(start)}
    select token.*, account.plan, account.quota_override, counted.used, account.suspended,
      (select m.role from account_members m where m.account_id = token.account_id and m.user_id = token.user_id) as member_role
    from token left join account on true left join counted on true`.execute(db)
  const row = result.rows[0]
  if (!row) return { token: undefined, charge: undefined, role: null }
  const { plan, quota_override, used, suspended, member_role: role, ...token } = row
  return { token, charge: chargeOfRow({ plan, quota_override, used, suspended }, start), role }
}

/** Requests counted in the current window, without counting one. */
export async function usage(db: Db, accountId: string, now = Date.now()): Promise<number> {
  const row = await db
    .selectFrom('api_quota')
    .select('used')
    .where('account_id', '=', accountId)
    .where('window_start', '=', windowStart(now))
    .executeTakeFirst()
  return row?.used ?? 0
}

/** Counters of windows that have ended are of no further use. */
export async function purgeQuotaWindows(db: Db, now = Date.now()): Promise<number> {
  const result = await db.deleteFrom('api_quota').where('window_start', '<', windowStart(now)).executeTakeFirst()
  return Number(result.numDeletedRows)
}
