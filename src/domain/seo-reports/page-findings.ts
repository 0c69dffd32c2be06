import type { AuditReport } from '../seo-audit/engine.ts'
import type { Finding } from '../seo-audit/rule.ts'

/** What a premium report says about one page of the site. */
export interface PageFindings {
  page: string
  findings: Finding[]
}

/**
 * A premium report's findings page by page (DESIGN.md 12: the premium audit crawls up to 50
 * pages): the pages with the most serious findings first, each page's findings as the report
 * orders them (most severe first). Findings that only inform are left out; a report that is not
 * premium has none.
 */
export function findingsByPage(report: AuditReport | undefined): PageFindings[] {
  if (!report?.premium) return []
  const pages = new Map<string, Finding[]>()
  for (const finding of report.findings) {
    if (!finding.page || finding.severity === 'info') continue
    pages.set(finding.page, [...(pages.get(finding.page) ?? []), finding])
  }
  const weight = (findings: Finding[]) =>
    findings.reduce((n, f) => n + (f.severity === 'critical' ? 100 : f.severity === 'warning' ? 10 : 1), 0)
  return [...pages]
    .map(([page, findings]) => ({ page, findings }))
    .sort((a, b) => weight(b.findings) - weight(a.findings) || a.page.localeCompare(b.page))
}
