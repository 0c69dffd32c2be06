import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as pause } from 'node:timers/promises'
import { expect } from 'vitest'
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js'
import { localProvider } from '../../src/public/audits/mcs/providers.ts'
import type { LighthouseReport } from '../../src/public/audits/mcs/result.ts'

// Local Lighthouse against a page the service serves on loopback. It measures the page, not the
// database, so callers run it once (in the embedded project). Without Chromium it is skipped with
// a message, except in CI where it must run.
export const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'
export const haveChrome = existsSync(chromePath)
if (!haveChrome && process.env.CI === 'true') throw new Error(`CI expects Chromium at ${chromePath} (CHROME_PATH) for the Lighthouse gates`)
if (!haveChrome) console.warn(`Lighthouse gates skipped: no Chromium at ${chromePath} (set CHROME_PATH)`)

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const
const MEDIAN_OF = 5
const AT_LEAST_95 = expect.toBeOneOf([95, 96, 97, 98, 99, 100])

const runOnce = (url: string) => localProvider(chromePath).run(url, ['127.0.0.1'])

/** One run; Lighthouse's own trace recording sometimes misses the navigation on a loaded machine
 * (NO_NAVSTART, NO_FCP: "Please run Lighthouse again"), and the page is then measured a second time. */
function measured(url: string): Promise<LighthouseReport> {
  return runOnce(url).catch(async (error: unknown) => {
    if (!/\((NO_NAVSTART|NO_FCP|NO_TRACING_STARTED)\)/.test(String((error as Error).message))) throw error
    return runOnce(url)
  })
}

/**
 * One throwaway run on an empty page before the first gate of a process. The first run of each
 * process loads and compiles Lighthouse while Chromium loads the page, on the same two cores: the
 * first gate of every suite run measured 63–150 s (five runs, often more rounds) and the same page
 * 15–20 s right after.
 */
let warmUp: Promise<unknown> | undefined
function warmedUp(): Promise<unknown> {
  warmUp ??= (async () => {
    const server = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<!doctype html><html lang="en"><meta name="viewport" content="width=device-width"><title>Warm-up</title><p>Warm-up</p>')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      await runOnce(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).catch(() => undefined)
    } finally {
      server.close()
    }
  })()
  return warmUp
}

const scoresOf = (report: LighthouseReport) => Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((report.categories[c] ?? 0) * 100)]))
const atLeast95 = (scores: Record<string, number>) => CATEGORIES.every((c) => scores[c]! >= 95)

/** The median of five runs when one run falls short, picked by Lighthouse's own `computeMedianRun`. */
async function judged(url: string): Promise<LighthouseReport> {
  const first = await measured(url)
  if (atLeast95(scoresOf(first))) return first
  const runs = [first]
  while (runs.length < MEDIAN_OF) runs.push(await measured(url))
  return computeMedianRun(runs as never) as unknown as LighthouseReport
}

const ROUNDS = 3

/**
 * Runs Lighthouse on `url` (its host mapped to 127.0.0.1) and expects at least 95 in each of the
 * four categories. Lab figures vary from run to run, the more so on a shared virtual machine (a
 * moment without the CPU shows as blocking time): a page below the bar is measured four more
 * times and judged by the median of the five runs, as Lighthouse's guidance on variability
 * advises. When even that median falls short, the page is measured alike again after a pause, up
 * to three rounds: a CI run once saw a whole minute of a starved host (TBT 433 ms on a page
 * without a script that measures 36–105 ms). An empty page measured in such moments still scored
 * 100, so it cannot tell a starved host from a slow page; a page that is slow falls short in
 * every round.
 */
export async function expectLighthouseAtLeast95(url: string): Promise<void> {
  await warmedUp()
  let report = await judged(url)
  const shortRounds: number[] = []
  while (!atLeast95(scoresOf(report)) && shortRounds.length < ROUNDS - 1) {
    shortRounds.push(scoresOf(report)['performance']!)
    await pause(20_000)
    report = await judged(url)
  }
  const scores = scoresOf(report)
  // Shown when the gate fails: the lab metrics, the audits that lost points and the earlier rounds' performance.
  const metrics = Object.fromEntries(
    ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index'].map((id) => [
      id,
      report.audits[id]?.numericValue,
    ]),
  )
  const failing = Object.entries(report.audits)
    .filter(([, a]) => a.score !== null && a.score < 0.9)
    .map(([id]) => id)
  expect(scores, JSON.stringify({ url, metrics, failing, earlierRounds: shortRounds })).toMatchObject(
    Object.fromEntries(CATEGORIES.map((c) => [c, AT_LEAST_95])),
  )
}
