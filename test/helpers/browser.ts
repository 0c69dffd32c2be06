import { existsSync, mkdirSync } from 'node:fs'
import { cleanUpAfter } from './cleanup.ts'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium, or CHROME_PATH. CI installs it; elsewhere the browser tests are skipped without it. */
export const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'
export const haveBrowser = existsSync(chromePath)

if (!haveBrowser && process.env.CI) throw new Error(`CI expects Chromium at ${chromePath} (.ci/run installs Debian's chromium)`)
if (!haveBrowser) console.warn(`No Chromium at ${chromePath}: browser tests are skipped (install Debian's chromium or set CHROME_PATH)`)

/** A headless Chromium for this test file, closed after it; flags keep it off the network (`extraArgs` add to them: a host resolver rule). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromePath,
    headless: true,
    args: [
      ...extraArgs,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  cleanUpAfter(() => browser.close())
  return browser
}

/** Screenshots are kept as CI artifacts under test-results/. */
export function screenshotPath(name: string): string {
  mkdirSync('test-results/screenshots', { recursive: true })
  return `test-results/screenshots/${name}.png`
}

export const PHONE = { width: 390, height: 844 }
export const DESKTOP = { width: 1280, height: 800 }
