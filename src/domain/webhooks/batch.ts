/**
 * The database work that the webhook jobs of one runner share. Jobs claimed together run
 * together, so their reads and their plain successes are batched: one read for the attempts that
 * start together, one statement for the successes that finish together, instead of a few round
 * trips per delivery. A fan-out hands the first attempts its runner has room for to that runner
 * already claimed, with what it read for them: they start without a read of their own.
 */
import type { Db } from '../../infra/db.ts'
import { batched } from '../../infra/jobs.ts'
import { readAttempts, type AttemptInput } from './attempt-read.ts'
import { recordSuccesses, type PlainSuccess } from './attempt-record.ts'

/**
 * A fan-out's read of a first attempt, as of its transaction a moment before, is taken once by
 * the attempt instead of reading again. One not taken within this time (its job went back to the
 * queue) is dropped, and that attempt reads for itself.
 */
const MAX_PRIMED_AGE_MS = 1000

export interface Batch {
  /** What a fan-out read for this first attempt, if it handed the attempt to this runner moments ago. */
  takePrimed(deliveryId: string): AttemptInput | undefined
  /** Keeps what a fan-out read for the first attempts it handed to this runner. */
  prime(inputs: readonly AttemptInput[]): void
  /** The attempt's read, made with those of the attempts that start together. */
  read(deliveryId: string): Promise<AttemptInput | undefined>
  /** Records a plain success with those that finish together; false when another run got there first. */
  recordSuccess(success: PlainSuccess): Promise<boolean>
}

const batches = new WeakMap<object, Batch>()

/** The batch of the jobs run with these dependencies (one runner's), made on first use. */
export function batchFor(deps: { db: Db }): Batch {
  let batch = batches.get(deps)
  if (!batch) {
    batch = makeBatch(deps.db)
    batches.set(deps, batch)
  }
  return batch
}

function makeBatch(db: Db): Batch {
  const primed = new Map<string, { input: AttemptInput; at: number }>()
  return {
    takePrimed(deliveryId) {
      const entry = primed.get(deliveryId)
      if (!entry) return undefined
      primed.delete(deliveryId)
      return performance.now() - entry.at <= MAX_PRIMED_AGE_MS ? entry.input : undefined
    },
    prime(inputs) {
      const now = performance.now()
      // Entries are added in time order: the stale ones are at the front.
      for (const [id, entry] of primed) {
        if (now - entry.at <= MAX_PRIMED_AGE_MS) break
        primed.delete(id)
      }
      for (const input of inputs) primed.set(input.delivery.id, { input, at: now })
    },
    read: batched((ids: string[]) => readAttempts(db, ids), { maxInFlight: 2 }),
    recordSuccess: batched((successes: PlainSuccess[]) => recordSuccesses(db, successes), { maxInFlight: 2 }),
  }
}
