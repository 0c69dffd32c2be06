import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, Page } from 'playwright-core'
import { DESKTOP, PHONE } from './browser.ts'

/**
 * Checks the pages a browser test without JavaScript is shown. axe-core runs as a script, so it
 * checks a copy of each page in a context where scripts run, served from `base`; the copy at
 * phone width must be no wider than the screen. `findings` gathers serious and critical
 * violations and pages too wide, `checked` the pages checked.
 */
export async function accessibilityChecker(browser: Browser, base: string) {
  const axePage = await (await browser.newContext({ viewport: DESKTOP })).newPage()
  await axePage.goto(`${base}/openapi.json`)
  const findings: string[] = []
  const checked: string[] = []

  async function check(label: string, target: Page) {
    await axePage.setViewportSize(DESKTOP)
    await axePage.setContent(await target.content())
    const { violations } = await new AxeBuilder({ page: axePage }).analyze()
    checked.push(label)
    for (const v of violations)
      if (v.impact === 'serious' || v.impact === 'critical')
        findings.push(`${label}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`)
    await axePage.setViewportSize(PHONE)
    if ((await axePage.evaluate<number>('document.documentElement.scrollWidth')) > PHONE.width)
      findings.push(`${label}: wider than a phone`)
  }

  return { check, findings, checked }
}
