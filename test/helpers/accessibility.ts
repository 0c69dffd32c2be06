import axe from 'axe-core'
import type { Browser, Page } from 'playwright-core'
import { DESKTOP, PHONE } from './browser.ts'

type Violation = { id: string; impact?: string | null; nodes: { target: unknown[] }[] }

/**
 * Checks the pages a browser test without JavaScript is shown. axe-core runs as a script, so it
 * checks a copy of each page in a context where scripts run, served from `base`; the copy at
 * phone width must be no wider than the screen. `findings` gathers serious and critical
 * violations and pages too wide, `checked` the pages checked. axe-core is loaded into the copy's
 * window once and asked for violations only: a fifth of the time AxeBuilder takes per page.
 */
export async function accessibilityChecker(browser: Browser, base: string) {
  const axePage = await (await browser.newContext({ viewport: DESKTOP })).newPage()
  await axePage.goto(`${base}/openapi.json`)
  const findings: string[] = []
  const checked: string[] = []

  async function check(label: string, target: Page) {
    await axePage.setViewportSize(DESKTOP)
    await axePage.setContent(await target.content())
    checked.push(label)
    for (const finding of await seriousFindings(axePage)) findings.push(`${label}: ${finding}`)
    await axePage.setViewportSize(PHONE)
    if ((await axePage.evaluate<number>('document.documentElement.scrollWidth')) > PHONE.width)
      findings.push(`${label}: wider than a phone`)
  }

  return { check, findings, checked }
}

/**
 * The serious and critical axe-core findings of a page where scripts run (a published site's, or
 * the checker's copy), as `id targets`. Replacing a page's content keeps its window, so axe-core is
 * loaded into it once; only the violations are asked for, so axe skips listing what passes.
 */
export async function seriousFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source)
  const violations = await page.evaluate<Violation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`)
}
