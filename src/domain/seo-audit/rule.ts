import type { SiteData } from './crawl.ts'
import type { PageFacts } from './page.ts'

export type Axis = 'seo' | 'aeo' | 'geo'
/** critical: blocks visibility; warning: costs ranking or citations; notice: a missed chance; info: not scored. */
export type Severity = 'critical' | 'warning' | 'notice' | 'info'
export type Effort = 'low' | 'medium' | 'high'

export interface Finding {
  rule: string
  axis: Axis
  severity: Severity
  message: string
  evidence?: string
  page?: string
}

/** A failed check on one page or on the site. */
export interface Problem {
  severity: Severity
  message: string
  evidence?: string
  page?: string
}

/**
 * One rule. `page` rules run on every audited page and earn the share of pages that pass; `site`
 * rules run once. Either returns the problems found, an empty list when all is well, or null when
 * the rule does not apply (e.g. hreflang on a one-language site).
 */
export interface Rule {
  id: string
  axis: Axis
  /** Relative importance within the axis. */
  weight: number
  effort: Effort
  /** The fix, in one line, for quick_wins. */
  fix: string
  premiumOnly?: boolean
  page?: (page: PageFacts, site: SiteData) => Problem[] | null
  /** Site rules may return a partial credit (0..1) beside their problems. */
  site?: (site: SiteData) => { problems: Problem[]; credit?: number } | null
}

export function clip(text: string | undefined, length = 160): string | undefined {
  if (text === undefined) return undefined
  return text.length > length ? `${text.slice(0, length - 1)}…` : text
}
