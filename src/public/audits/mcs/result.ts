/** What a Lighthouse run reports, from either provider, reduced to what the MCS needs. */
export interface LighthouseReport {
  lighthouse_version: string
  final_url: string
  runtime_error?: string
  /** Category id → score 0..1 (null when Lighthouse could not score it). */
  categories: Record<string, number | null>
  audits: Record<string, { numericValue?: number; score: number | null }>
}

export type McsCategory = 'performance' | 'accessibility' | 'best_practices' | 'seo' | 'agentic_browsing'

/**
 * The MCS blend (docs/decisions.md): performance 35 %, SEO 25 %, accessibility 20 %, best
 * practices 20 %; when the Lighthouse version has the agentic-browsing category it takes 15 % and
 * the others give way (30/20/20/15). A category Lighthouse could not score drops out and the rest
 * are re-weighted.
 */
export const MCS_WEIGHTS: Record<'classic' | 'agentic', Partial<Record<McsCategory, number>>> = {
  classic: { performance: 0.35, seo: 0.25, accessibility: 0.2, best_practices: 0.2 },
  agentic: { performance: 0.3, seo: 0.2, accessibility: 0.2, best_practices: 0.15, agentic_browsing: 0.15 },
}

const LIGHTHOUSE_IDS: Record<McsCategory, string> = {
  performance: 'performance',
  accessibility: 'accessibility',
  best_practices: 'best-practices',
  seo: 'seo',
  agentic_browsing: 'agentic-browsing',
}

const METRICS = {
  first_contentful_paint_ms: 'first-contentful-paint',
  largest_contentful_paint_ms: 'largest-contentful-paint',
  total_blocking_time_ms: 'total-blocking-time',
  cumulative_layout_shift: 'cumulative-layout-shift',
  speed_index_ms: 'speed-index',
  time_to_interactive_ms: 'interactive',
} as const

export interface McsResult {
  domain: string
  url: string
  provider: 'local' | 'psi'
  form_factor: 'mobile'
  lighthouse_version: string
  mcs: number
  categories: Record<McsCategory, number | null>
  weights: Partial<Record<McsCategory, number>>
  metrics: Record<keyof typeof METRICS, number | null>
  measured_at: string
  expires_at: string
}

export function toMcsResult(domain: string, provider: 'local' | 'psi', report: LighthouseReport, now: Date, ttlMs: number): McsResult {
  const categories = {} as Record<McsCategory, number | null>
  for (const [key, id] of Object.entries(LIGHTHOUSE_IDS) as Array<[McsCategory, string]>) {
    const score = report.categories[id]
    categories[key] = typeof score === 'number' ? Math.round(score * 100) : null
  }
  const hasAgentic = id('agentic-browsing', report)
  const weights = { ...MCS_WEIGHTS[hasAgentic ? 'agentic' : 'classic'] }
  let total = 0
  let sum = 0
  for (const [key, weight] of Object.entries(weights) as Array<[McsCategory, number]>) {
    const score = categories[key]
    if (score === null) continue
    total += weight
    sum += weight * score
  }
  const metrics = {} as McsResult['metrics']
  for (const [key, audit] of Object.entries(METRICS) as Array<[keyof typeof METRICS, string]>) {
    const value = report.audits[audit]?.numericValue
    metrics[key] =
      typeof value === 'number' ? (key === 'cumulative_layout_shift' ? Math.round(value * 1000) / 1000 : Math.round(value)) : null
  }
  return {
    domain,
    url: report.final_url,
    provider,
    form_factor: 'mobile',
    lighthouse_version: report.lighthouse_version,
    mcs: total === 0 ? 0 : Math.round(sum / total),
    categories,
    weights,
    metrics,
    measured_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  }
}

function id(category: string, report: LighthouseReport): boolean {
  return category in report.categories
}
