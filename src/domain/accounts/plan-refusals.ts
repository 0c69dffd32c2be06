import { errors } from '../../errors.ts'
import type { Plan } from './plans.ts'

/**
 * What a plan refused, as facts: the API's message words them in English with the exact
 * allowance, and a page in another language words the same facts in its own.
 */
export type PlanFacts =
  | { about: 'sites' | 'domains' | 'seats'; plan: Plan; allowed: number; has: number }
  | { about: 'publish'; plan: Plan; allowed: number }
  | { about: 'storage'; plan: Plan; allowedMb: number; usedMb: number }
  | { about: 'feature'; plan: Plan; from: Plan | null }

const FACTS = Symbol('plan facts')

/** A 403 plan_limit or plan_required with its English message, carrying its facts for other languages. */
export function planRefused(code: 'plan_limit' | 'plan_required', message: string, facts: PlanFacts): Error {
  const error = code === 'plan_limit' ? new errors.planLimit(message) : new errors.planRequired(message)
  return Object.assign(error, { [FACTS]: facts })
}

/** The facts of a refusal made by planRefused; undefined for any other error. */
export function planFactsOf(error: unknown): PlanFacts | undefined {
  return typeof error === 'object' && error !== null ? (error as { [FACTS]?: PlanFacts })[FACTS] : undefined
}
