import type { Db } from '../../infra/db.ts'
import { errors } from '../../errors.ts'
import { entitlementsOf } from './add-ons.ts'
import { addOnAvailable, addOnTerms, cheapestPlan, countOf, planEntitlements, within } from './entitlements.ts'
import type { Plan } from './plans.ts'
import { planRefused } from './plan-refusals.ts'

/**
 * Seats (DESIGN.md 12): the plan's included seats plus the extra_seat add-on's quantity. A member
 * takes a seat, and so does a pending invitation, so the invitations out never promise more
 * seats than there are. A downgrade removes nobody; it only stops new invitations until the
 * account is within its seats again.
 */
export interface SeatUsage {
  accountId: string
  plan: Plan
  /** Seats of the plan with the add-on counted in; null is unlimited. */
  seats: number | null
  extra: number
  members: number
  pending: number
}

const seatsOf = (n: number | null) => countOf(n, 'seat', 'seats')

async function count(db: Db, accountId: string): Promise<{ members: number; pending: number }> {
  const [members, pending] = await Promise.all([
    db
      .selectFrom('account_members')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('account_invitations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .where('accepted_at', 'is', null)
      .where('withdrawn_at', 'is', null)
      .where('expires_at', '>', new Date())
      .executeTakeFirstOrThrow(),
  ])
  return { members: Number(members.n), pending: Number(pending.n) }
}

/** Where the account stands against its seats. `lock` holds the account row to the end of the caller's transaction. */
export async function seatUsage(db: Db, accountId: string, options: { lock?: boolean } = {}): Promise<SeatUsage> {
  const limits = await entitlementsOf(db, accountId, options)
  if (!limits) throw new errors.notFound(`No account ${accountId}`)
  const extra = addOnAvailable(limits.plan, 'extra_seat') ? (limits.addOns.extra_seat ?? 0) : 0
  return { accountId, plan: limits.plan, seats: limits.seats, extra, ...(await count(db, accountId)) }
}

/** Whether one more person fits: the members and pending invitations against the seats. */
export function seatFree(usage: SeatUsage): boolean {
  return within(usage.members + usage.pending + 1, usage.seats)
}

/** What an account at (or over) its seats is told: what it has, and what allows one more. */
export function seatsMessage(usage: SeatUsage): string {
  const included = planEntitlements(usage.plan).seats
  const taken = `${countOf(usage.members, 'member', 'members')}${usage.pending ? ` and ${countOf(usage.pending, 'pending invitation', 'pending invitations')}` : ''}`
  const bigger = cheapestPlan((e) => within(usage.members + usage.pending + 1, e.seats))
  const addOn = addOnTerms('extra_seat')
  const upgrade = addOnAvailable(usage.plan, 'extra_seat')
    ? `one more extra_seat add-on${bigger ? ` or plan ${bigger} (${seatsOf(planEntitlements(bigger).seats)})` : ''} allows another`
    : `plan ${addOn.availableFrom} and above can book the extra_seat add-on${bigger ? `, and plan ${bigger} includes ${seatsOf(planEntitlements(bigger).seats)}` : ''}`
  return (
    `The account ${usage.accountId} is on plan ${usage.plan}, which includes ${seatsOf(included)}` +
    `${usage.extra ? ` (with the extra_seat add-on ×${usage.extra}: ${usage.seats})` : ''}, and has ${taken}; ${upgrade}`
  )
}

function seatsRefused(usage: SeatUsage): Error {
  const facts = { about: 'seats', plan: usage.plan, allowed: usage.seats ?? 0, has: usage.members + usage.pending } as const
  return planRefused('plan_limit', seatsMessage(usage), facts)
}

/**
 * Refuses an invitation beyond the seats (403 plan_limit with the upgrade path). Call in the
 * transaction that stores the invitation: the account row stays locked to its end.
 */
export async function assertSeatForInvitation(trx: Db, accountId: string): Promise<void> {
  const usage = await seatUsage(trx, accountId, { lock: true })
  if (!seatFree(usage)) throw seatsRefused(usage)
}

/**
 * Refuses to add a member when every seat is taken by a member (an invitation accepted after a
 * downgrade): its own pending invitation does not count against it. Call in the accepting transaction.
 */
export async function assertSeatForMember(trx: Db, accountId: string): Promise<void> {
  const usage = await seatUsage(trx, accountId, { lock: true })
  if (!within(usage.members + 1, usage.seats)) throw seatsRefused({ ...usage, pending: 0 })
}
