import type { Plan, Pricing } from '../domain/accounts/plans.ts'

/**
 * What a plan includes beyond the counts every room reads (sites, domains, seats): photo storage
 * and how long visitor statistics are kept. They come from the price list when it carries them;
 * until a price list does, the values of the product's description stand in, so the assistant
 * never states a limit the price list contradicts once it has one.
 */
export interface PlanExtras {
  /** Storage for photos and files in megabytes; null is unlimited. */
  storageMb: number | null
  /** How long statistics are kept: days below a year, else months. */
  statsKept: { days: number } | { months: number }
}

const described: Record<Plan, PlanExtras> = {
  free: { storageMb: 250, statsKept: { days: 30 } },
  lite: { storageMb: 1000, statsKept: { months: 13 } },
  plus: { storageMb: 5000, statsKept: { months: 13 } },
  pro: { storageMb: 25_000, statsKept: { months: 25 } },
  max: { storageMb: 100_000, statsKept: { months: 25 } },
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

function storageOf(plan: Record<string, unknown>): number | null | undefined {
  for (const [key, perMb] of [
    ['storage_mb', 1],
    ['media_storage_mb', 1],
    ['storage_gb', 1000],
    ['media_storage_gb', 1000],
    ['storage_bytes', 1e-6],
    ['media_storage_bytes', 1e-6],
    ['media_bytes', 1e-6],
  ] as const) {
    if (plan[key] === null) return null
    const v = num(plan[key])
    if (v !== undefined) return Math.round(v * perMb)
  }
  return undefined
}

function keptOf(plan: Record<string, unknown>): PlanExtras['statsKept'] | undefined {
  const months = num(plan['stats_retention_months'])
  if (months !== undefined) return months < 12 ? { days: Math.round(months * 30) } : { months }
  const days = num(plan['stats_retention_days'])
  if (days !== undefined) return days < 365 ? { days } : { months: Math.round(days / 30.44) }
  return undefined
}

const cache = new WeakMap<Pricing, Record<Plan, PlanExtras>>()

export function planExtras(pricing: Pricing): Record<Plan, PlanExtras> {
  let out = cache.get(pricing)
  if (!out) {
    out = Object.fromEntries(
      pricing.plans.map((p) => {
        const raw = p as unknown as Record<string, unknown>
        const storage = storageOf(raw)
        return [
          p.id,
          { storageMb: storage === undefined ? described[p.id].storageMb : storage, statsKept: keptOf(raw) ?? described[p.id].statsKept },
        ]
      }),
    ) as Record<Plan, PlanExtras>
    cache.set(pricing, out)
  }
  return out
}

/** Months a plan keeps statistics (a month for 30 days). */
export const keptMonths = (kept: PlanExtras['statsKept']) => ('months' in kept ? kept.months : kept.days / 30)
