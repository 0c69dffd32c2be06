import type { SafeFetcher } from '../../infra/fetcher.ts'
import { collectSite, type SiteData } from './crawl.ts'
import { aiCrawlerAccess, type CrawlerPurpose } from './robots.ts'
import type { Axis, Effort, Finding, Problem, Rule, Severity } from './rule.ts'
import { aeoRules } from './rules-aeo.ts'
import { geoRules } from './rules-geo.ts'
import { seoRules } from './rules-seo.ts'

export const RULES: readonly Rule[] = [...seoRules, ...aeoRules, ...geoRules]

/** Share of the overall score each axis carries (docs/decisions.md). */
export const AXIS_WEIGHTS: Record<Axis, number> = { seo: 0.5, aeo: 0.25, geo: 0.25 }
/** How much of a rule's credit a problem of each severity takes away on one page. */
const PENALTY: Record<Severity, number> = { critical: 1, warning: 0.6, notice: 0.3, info: 0 }
const EFFORT_COST: Record<Effort, number> = { low: 1, medium: 2, high: 4 }
const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, warning: 1, notice: 2, info: 3 }
const FINDINGS_PER_RULE = 10
const QUICK_WINS = 5

export interface AxisScore {
  score: number
  rules_checked: number
  rules_failed: number
}

export interface QuickWin {
  rule: string
  axis: Axis
  fix: string
  /** Points of the overall score the fix is worth. */
  gain: number
  effort: Effort
}

export interface AuditReport {
  domain: string
  url: string
  premium: boolean
  reachable: boolean
  score: number
  axes: Record<Axis, AxisScore>
  findings: Finding[]
  quick_wins: QuickWin[]
  pages_checked: number
  ai_crawlers: Array<{ agent: string; operator: string; purpose: CrawlerPurpose; allowed: boolean }>
  duration_ms: number
}

interface Outcome {
  rule: Rule
  credit: number
  findings: Finding[]
}

function creditOf(problems: Problem[]): number {
  return 1 - Math.max(0, ...problems.map((p) => PENALTY[p.severity]))
}

function evaluate(rule: Rule, site: SiteData): Outcome | undefined {
  const toFinding = (p: Problem, page?: string): Finding => ({
    rule: rule.id,
    axis: rule.axis,
    severity: p.severity,
    message: p.message,
    ...(p.evidence !== undefined ? { evidence: p.evidence } : {}),
    ...((p.page ?? page) !== undefined ? { page: p.page ?? page } : {}),
  })
  if (rule.page) {
    let applicable = 0
    let credit = 0
    const findings: Finding[] = []
    for (const page of site.pages) {
      if (!page.is_html && page !== site.pages[0]) continue
      const problems = rule.page(page, site)
      if (problems === null) continue
      applicable++
      credit += creditOf(problems)
      for (const p of problems) findings.push(toFinding(p, page.url))
    }
    return applicable === 0 ? undefined : { rule, credit: credit / applicable, findings }
  }
  const result = rule.site?.(site)
  if (!result) return undefined
  const home = site.pages[0]?.url
  return { rule, credit: result.credit ?? creditOf(result.problems), findings: result.problems.map((p) => toFinding(p, p.page ?? home)) }
}

function unreachableReport(site: SiteData, started: number): AuditReport {
  const empty = { score: 0, rules_checked: 0, rules_failed: 0 }
  return {
    domain: site.domain,
    url: `https://${site.domain}/`,
    premium: site.premium,
    reachable: false,
    score: 0,
    axes: { seo: { ...empty }, aeo: { ...empty }, geo: { ...empty } },
    findings: [
      {
        rule: 'site.unreachable',
        axis: 'seo',
        severity: 'critical',
        message: `The site could not be reached over https or http: ${site.unreachable_reason ?? 'no answer'}`,
      },
    ],
    quick_wins: [],
    pages_checked: 0,
    ai_crawlers: [],
    duration_ms: Math.round(performance.now() - started),
  }
}

/** Scores what was collected: per axis the weighted share of credit, overall the weighted axes. */
export function scoreSite(site: SiteData, started = performance.now()): AuditReport {
  if (!site.reachable) return unreachableReport(site, started)
  const outcomes = RULES.filter((r) => site.premium || !r.premiumOnly)
    .map((r) => evaluate(r, site))
    .filter((o): o is Outcome => o !== undefined)

  const axes = {} as Record<Axis, AxisScore>
  const totals = {} as Record<Axis, number>
  for (const axis of ['seo', 'aeo', 'geo'] as const) {
    const scored = outcomes.filter((o) => o.rule.axis === axis && o.rule.weight > 0)
    const total = scored.reduce((n, o) => n + o.rule.weight, 0)
    const earned = scored.reduce((n, o) => n + o.rule.weight * o.credit, 0)
    totals[axis] = total
    axes[axis] = {
      score: total === 0 ? 100 : Math.round((100 * earned) / total),
      rules_checked: scored.length,
      rules_failed: scored.filter((o) => o.credit < 1).length,
    }
  }
  const score = Math.round((Object.keys(AXIS_WEIGHTS) as Axis[]).reduce((n, axis) => n + AXIS_WEIGHTS[axis] * axes[axis].score, 0))

  const findings = outcomes
    .flatMap((o) => o.findings.slice(0, FINDINGS_PER_RULE))
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity])

  // The fixes worth most points of the overall score per unit of effort.
  const quick_wins = outcomes
    .filter((o) => o.credit < 1 && o.rule.weight > 0)
    .map((o) => {
      const gain = (100 * AXIS_WEIGHTS[o.rule.axis] * o.rule.weight * (1 - o.credit)) / totals[o.rule.axis]
      return { o, gain, value: gain / EFFORT_COST[o.rule.effort] }
    })
    .filter((w) => w.gain >= 0.5)
    .sort((a, b) => b.value - a.value)
    .slice(0, QUICK_WINS)
    .map(({ o, gain }) => ({
      rule: o.rule.id,
      axis: o.rule.axis,
      fix: o.rule.fix,
      gain: Math.round(gain * 10) / 10,
      effort: o.rule.effort,
    }))

  return {
    domain: site.domain,
    url: site.pages[0]!.url,
    premium: site.premium,
    reachable: true,
    score,
    axes,
    findings,
    quick_wins,
    pages_checked: site.pages.length,
    ai_crawlers: aiCrawlerAccess(site.robots.parsed).map(({ agent, operator, purpose, allowed }) => ({
      agent,
      operator,
      purpose,
      allowed,
    })),
    duration_ms: Math.round(performance.now() - started),
  }
}

export async function runAudit(fetcher: SafeFetcher, domain: string, premium: boolean): Promise<AuditReport> {
  const started = performance.now()
  const site = await collectSite(fetcher, domain, premium)
  return scoreSite(site, started)
}
