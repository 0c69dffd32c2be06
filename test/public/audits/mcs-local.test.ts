import { readdirSync, readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { ajvFormats } from '../../../src/infra/ajv-formats.ts'
import { describe, expect, it } from 'vitest'
import { McsResultSchema } from '../../../src/domain/checks/site-quality-schema.ts'
import { buildTestApp } from '../../helpers/app.ts'
import { serveFixtureForFile } from '../../fixtures/sites/serve.ts'

// Local Lighthouse for real: Debian's Chromium (CHROME_PATH, default /usr/bin/chromium) against a
// fixture page on loopback.
const ajv = new Ajv({ strict: false })
ajvFormats(ajv)
const validResult = ajv.compile(McsResultSchema)

const site = () => serveFixtureForFile('clean')

/** The browsers of Lighthouse runs now (their profile is a wps-lh- folder), with their user and arguments, read from /proc. */
function auditBrowsers(): Array<{ uid: number; args: string[] }> {
  const found: Array<{ uid: number; args: string[] }> = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      if (!args.some((arg) => arg.startsWith('--user-data-dir=') && arg.includes('wps-lh-')) || !args.includes('--remote-debugging-port=0'))
        continue
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
      found.push({ uid, args })
    } catch {
      // The process ended while it was read.
    }
  }
  return found
}

let ip = 0
type Injectable = {
  inject: (o: object) => Promise<{ statusCode: number; json: () => any; headers: Record<string, unknown>; body: string }>
}
const get = (app: Injectable, url: string) => app.inject({ method: 'GET', url, remoteAddress: `198.51.100.${++ip % 250}` })

describe('GET /api/mcs-check with local Lighthouse', async () => {
  const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'
  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CHROME_PATH: chromePath } })

  it('runs Lighthouse in a child process against a fixture page', { timeout: 150_000 }, async () => {
    const fixture = await site()
    // While it runs, the browser is watched from outside: the audited page is untrusted, so Chrome keeps its sandbox.
    let running = true
    const seen: Array<{ uid: number; args: string[] }> = []
    const watching = (async () => {
      while (running) {
        seen.push(...auditBrowsers())
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const res = await get(app, `/api/mcs-check?domain=${fixture.domain}`).finally(() => (running = false))
    await watching
    expect(res.statusCode, res.body).toBe(200)
    expect(seen.length).toBeGreaterThan(0)
    for (const browser of seen) {
      expect(browser.args).not.toContain('--no-sandbox')
      // Chrome's sandbox refuses root: a service running as root starts it as nobody.
      expect(browser.uid).toBe(process.getuid!() === 0 ? 65534 : process.getuid!())
    }
    const body = res.json()
    expect(validResult(body), JSON.stringify(validResult.errors)).toBe(true)
    expect(body).toMatchObject({ provider: 'local', url: `${fixture.origin}/`, cached: false })
    expect(body.lighthouse_version).toMatch(/^13\./)
    for (const category of ['performance', 'accessibility', 'best_practices', 'seo', 'agentic_browsing']) {
      expect(body.categories[category], category).toBeGreaterThanOrEqual(0)
    }
    expect(body.weights).toEqual({ performance: 0.3, seo: 0.2, accessibility: 0.2, best_practices: 0.15, agentic_browsing: 0.15 })
    const c = body.categories
    expect(body.mcs).toBe(
      Math.round(0.3 * c.performance + 0.2 * c.seo + 0.2 * c.accessibility + 0.15 * c.best_practices + 0.15 * c.agentic_browsing),
    )
    expect(body.metrics.first_contentful_paint_ms).toBeGreaterThan(0)
    expect(body.metrics.largest_contentful_paint_ms).toBeGreaterThan(0)
    expect(fixture.hits).toContain('/')
  })
})

describe('GET /api/mcs-check when Chrome cannot start', async () => {
  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CHROME_PATH: '/nonexistent/chromium' } })

  it('answers 503 with Retry-After and caches nothing', async () => {
    const fixture = await site()
    const res = await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ code: 'mcs_failed' })
    expect(res.body).not.toContain('nonexistent')
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(await app.db.selectFrom('mcs_results').select('domain').execute()).toEqual([])
  })
})
