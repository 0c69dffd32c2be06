import { existsSync } from 'node:fs'
import { expect } from 'vitest'
import { localProvider } from '../../src/public/audits/mcs/providers.ts'

// Local Lighthouse against a page the service serves on loopback. It measures the page, not the
// database, so callers run it once (in the embedded project). Without Chromium it is skipped with
// a message, except in CI where it must run.
export const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'
export const haveChrome = existsSync(chromePath)
if (!haveChrome && process.env.CI === 'true') throw new Error(`CI expects Chromium at ${chromePath} (CHROME_PATH) for the Lighthouse gates`)
if (!haveChrome) console.warn(`Lighthouse gates skipped: no Chromium at ${chromePath} (set CHROME_PATH)`)

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const
const AT_LEAST_95 = expect.toBeOneOf([95, 96, 97, 98, 99, 100])

const runOnce = (url: string) => localProvider(chromePath).run(url, ['127.0.0.1'])

/** Runs Lighthouse on `url` (its host mapped to 127.0.0.1) and expects at least 95 in each of the four categories. */
export async function expectLighthouseAtLeast95(url: string): Promise<void> {
  const report = await runOnce(url).catch(async (error: unknown) => {
    // Lighthouse's own trace recording sometimes misses the navigation on a loaded machine
    // (NO_NAVSTART, NO_FCP: "Please run Lighthouse again"); the page is measured a second time then.
    if (!/\((NO_NAVSTART|NO_FCP|NO_TRACING_STARTED)\)/.test(String((error as Error).message))) throw error
    return runOnce(url)
  })
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((report.categories[c] ?? 0) * 100)]))
  // Shown when the gate fails: the lab metrics and the audits that lost points.
  const metrics = Object.fromEntries(['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index'].map((id) => [id, report.audits[id]?.numericValue]))
  const failing = Object.entries(report.audits).filter(([, a]) => a.score !== null && a.score < 0.9).map(([id]) => id)
  expect(scores, JSON.stringify({ url, metrics, failing })).toMatchObject(Object.fromEntries(CATEGORIES.map((c) => [c, AT_LEAST_95])))
}
