import type { Logger } from 'pino'
import type { Db } from '../../infra/db.ts'
import { changedSince, changeSequence, markChanged } from './changes.ts'
import type { Plan } from './plans.ts'
import { addRequests, chargeRequest, hourlyLimit, WINDOW_SECONDS, windowStart, type Charge } from './quota.ts'

/** How long an account's plan and count, as last read from the database, may stand in for it. */
const FRESH_MS = 1000
/** How often requests counted here are written to the shared counter. */
const FLUSH_MS = 200
/** An account not charged for this long is forgotten. */
const IDLE_MS = 60_000

/**
 * Requests left in the window below which every request is counted in the database, one by one:
 * near the limit the count must be exact across instances; far from it, a few requests more or
 * less in the header's `remaining` matter to nobody.
 */
export const exactBelow = (limit: number) => Math.max(100, Math.ceil(limit * 0.05))

/** Called by every change of an account's plan, budget or suspension, so this process charges it exactly from now on until it reads it again. */
export function accountChanged(accountId: string): void {
  markChanged(accountId)
}

interface Tally {
  /** Start of the window (ms) the counts belong to. */
  window: number
  plan: Plan
  limit: number
  suspended: boolean
  /** The shared counter as last read, this instance's written counts included. */
  known: number
  /** Counted here since, not written yet. */
  pending: number
  syncedAt: number
  /** The change sequence noted before the reading: a change of the account after it makes the reading stale. */
  seen: number
  usedAt: number
}

/**
 * The hourly budgets of DESIGN.md 7, counted in process while an account is far from its limit.
 * The shared counter in the database stays the truth: every instance adds what it counted a few
 * times a second and reads back the total with the account's plan, so a plan change or another
 * instance's traffic is seen within a fraction of a second and a restart loses at most the counts
 * of the last flush. A change of the plan made in this process applies at once (`accountChanged`),
 * one made elsewhere (the admin CLI) within a second. Near the limit, on a new window, or without
 * a fresh reading, `charge`
 * answers undefined and the caller charges the database exactly (`chargeRequest`,
 * `chargeApiToken`) and hands its answer to `remember`.
 *
 * Why: every request of an account would otherwise update the same row, one database round trip
 * per request spent on a counter that is far from mattering.
 */
export class QuotaTally {
  readonly #db: Db
  readonly #log: Pick<Logger, 'warn'>
  readonly #tallies = new Map<string, Tally>()
  #timer: NodeJS.Timeout | undefined
  #flushing: Promise<void> = Promise.resolve()

  constructor(db: Db, log: Pick<Logger, 'warn'>) {
    this.#db = db
    this.#log = log
  }

  /** Charges one request here, or undefined when the database must decide. */
  charge(accountId: string, now = Date.now()): Charge | undefined {
    const tally = this.#tallies.get(accountId)
    if (!tally || now - tally.syncedAt > FRESH_MS || windowStart(now).getTime() !== tally.window) return undefined
    if (changedSince(accountId, tally.seen)) return undefined
    const used = tally.known + tally.pending + 1
    if (tally.limit - used < exactBelow(tally.limit)) return undefined
    tally.pending++
    tally.usedAt = now
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref()
    return {
      plan: tally.plan,
      limit: tally.limit,
      used,
      resetAt: new Date(tally.window + WINDOW_SECONDS * 1000),
      suspended: tally.suspended,
    }
  }

  /** What an exact charge in the database answered; `seen` is the change sequence noted before it was asked. */
  remember(accountId: string, charge: Charge, now = Date.now(), seen = changeSequence()): void {
    const window = charge.resetAt.getTime() - WINDOW_SECONDS * 1000
    const previous = this.#tallies.get(accountId)
    const pending = previous?.window === window ? previous.pending : 0
    this.#tallies.set(accountId, {
      window,
      plan: charge.plan,
      limit: charge.limit,
      suspended: charge.suspended,
      known: charge.used,
      pending,
      syncedAt: now,
      seen,
      usedAt: now,
    })
  }

  /**
   * Drops what was counted here for an account and waits for a write under way: an account being
   * erased must not have its counts written after its rows are gone.
   */
  forget(accountId: string): Promise<void> {
    this.#tallies.delete(accountId)
    return this.#flushing
  }

  /** Writes what was counted here and reads back each account's total and plan. */
  flush(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#flushing = this.#flushing.then(() => this.#write())
    return this.#flushing
  }

  async #write(): Promise<void> {
    const now = Date.now()
    for (const [accountId, tally] of this.#tallies) {
      if (tally.pending === 0) {
        if (now - tally.usedAt > IDLE_MS) this.#tallies.delete(accountId)
        continue
      }
      const delta = tally.pending
      tally.pending = 0
      try {
        const seen = changeSequence()
        const row = await addRequests(this.#db, accountId, new Date(tally.window), delta)
        if (!row?.plan || row.used === null) {
          // The account is gone: its callers are refused by the exact path from now on.
          this.#tallies.delete(accountId)
          continue
        }
        Object.assign(tally, {
          plan: row.plan,
          limit: hourlyLimit(row.plan, row.quota_override),
          suspended: row.suspended === true,
          known: row.used,
          syncedAt: Date.now(),
          seen,
        })
      } catch (error) {
        // The database is away: keep the counts for the next flush, and let the exact path decide meanwhile.
        tally.pending += delta
        tally.syncedAt = 0
        this.#log.warn({ err: error, accountId }, 'hourly counts not written yet')
      }
    }
    if ([...this.#tallies.values()].some((t) => t.pending > 0)) this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref()
  }
}

/** Charges a call of an account: in process when the tally may, else exactly in the database. */
export async function chargeAccount(db: Db, tally: QuotaTally, accountId: string): Promise<Charge | undefined> {
  const local = tally.charge(accountId)
  if (local) return local
  const seen = changeSequence()
  const charge = await chargeRequest(db, accountId)
  if (charge) tally.remember(accountId, charge, Date.now(), seen)
  return charge
}
