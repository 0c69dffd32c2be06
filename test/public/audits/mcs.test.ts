import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Ajv } from 'ajv'
import { ajvFormats } from '../../../src/infra/ajv-formats.ts'
import { afterAll, describe, expect, it } from 'vitest'
import { McsResultSchema } from '../../../src/domain/checks/site-quality-schema.ts'
import { buildTestApp } from '../../helpers/app.ts'
import { closedPort, serveFixtureForFile } from '../../fixtures/sites/serve.ts'

const ajv = new Ajv({ strict: false })
ajvFormats(ajv)
const validResult = ajv.compile(McsResultSchema)

/**
 * A fake PageSpeed Insights v5 server on loopback, answering runPagespeed in the real API's shape.
 * What it answers depends on the measured URL's port, so each test uses its own fixture site.
 */
const psiCalls: URL[] = []
const psiBehaviour = new Map<string, 'ok' | 'rate_limited' | 'lighthouse_error' | 'slow'>()
let psi: Server
let psiUrl = ''

function lighthouseResult(url: string) {
  return {
    captchaResult: 'CAPTCHA_NOT_NEEDED',
    kind: 'pagespeedonline#result',
    id: url,
    lighthouseResult: {
      requestedUrl: url,
      finalUrl: url,
      finalDisplayedUrl: url,
      lighthouseVersion: '12.8.2',
      userAgent: 'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) Chrome-Lighthouse',
      fetchTime: new Date().toISOString(),
      environment: { networkUserAgent: 'Chrome-Lighthouse', hostUserAgent: 'HeadlessChrome', benchmarkIndex: 1000 },
      runWarnings: [],
      configSettings: {
        emulatedFormFactor: 'mobile',
        formFactor: 'mobile',
        locale: 'en-US',
        onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
      },
      audits: {
        'first-contentful-paint': {
          id: 'first-contentful-paint',
          score: 0.62,
          numericValue: 2412.7,
          numericUnit: 'millisecond',
          displayValue: '2.4 s',
        },
        'largest-contentful-paint': {
          id: 'largest-contentful-paint',
          score: 0.41,
          numericValue: 4120.3,
          numericUnit: 'millisecond',
          displayValue: '4.1 s',
        },
        'total-blocking-time': { id: 'total-blocking-time', score: 0.8, numericValue: 210, numericUnit: 'millisecond' },
        'cumulative-layout-shift': { id: 'cumulative-layout-shift', score: 0.9, numericValue: 0.08123, numericUnit: 'unitless' },
        'speed-index': { id: 'speed-index', score: 0.7, numericValue: 3600.4, numericUnit: 'millisecond' },
        interactive: { id: 'interactive', score: 0.6, numericValue: 5100, numericUnit: 'millisecond' },
      },
      categories: {
        performance: { id: 'performance', title: 'Performance', score: 0.5 },
        accessibility: { id: 'accessibility', title: 'Accessibility', score: 0.9 },
        'best-practices': { id: 'best-practices', title: 'Best Practices', score: 1 },
        seo: { id: 'seo', title: 'SEO', score: 0.8 },
      },
    },
    analysisUTCTimestamp: new Date().toISOString(),
  }
}

// Started at collection time: the apps below are built with its address.
{
  psi = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://psi')
    psiCalls.push(url)
    const target = url.searchParams.get('url') ?? ''
    const behaviour = psiBehaviour.get(new URL(target).port) ?? 'ok'
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(body))
    if (url.pathname !== '/pagespeedonline/v5/runPagespeed' || url.searchParams.get('key') !== 'test-psi-key') {
      return json(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } })
    }
    if (behaviour === 'rate_limited') {
      return json(
        429,
        { error: { code: 429, message: 'Quota exceeded for quota metric', status: 'RESOURCE_EXHAUSTED' } },
        { 'retry-after': '17' },
      )
    }
    if (behaviour === 'lighthouse_error') {
      return json(400, {
        error: {
          code: 400,
          message: 'Lighthouse returned error: FAILED_DOCUMENT_REQUEST. Lighthouse was unable to reliably load the page you requested.',
          status: 'INVALID_ARGUMENT',
        },
      })
    }
    setTimeout(() => json(200, lighthouseResult(target)), behaviour === 'slow' ? 300 : 20)
  })
  await new Promise<void>((resolve) => psi.listen(0, '127.0.0.1', resolve))
  psiUrl = `http://127.0.0.1:${(psi.address() as AddressInfo).port}/pagespeedonline/v5`
}
afterAll(async () => {
  psi.closeAllConnections()
  await new Promise((resolve) => psi.close(resolve))
})

const site = () => serveFixtureForFile('clean')

let ip = 0
const get = (
  app: { inject: (o: object) => Promise<{ statusCode: number; json: () => any; headers: Record<string, unknown>; body: string }> },
  url: string,
) => app.inject({ method: 'GET', url, remoteAddress: `198.51.100.${++ip % 250}` })

describe('GET /api/mcs-check with PageSpeed Insights', async () => {
  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PSI_API_KEY: 'test-psi-key', PSI_API_URL: psiUrl } })

  it('maps the Lighthouse result and blends the MCS with the documented weights', async () => {
    const fixture = await site()
    const res = await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validResult(body), JSON.stringify(validResult.errors)).toBe(true)
    expect(body).toMatchObject({
      domain: fixture.domain,
      url: `${fixture.origin}/`,
      provider: 'psi',
      form_factor: 'mobile',
      lighthouse_version: '12.8.2',
      cached: false,
      categories: { performance: 50, accessibility: 90, best_practices: 100, seo: 80, agentic_browsing: null },
      weights: { performance: 0.35, seo: 0.25, accessibility: 0.2, best_practices: 0.2 },
      metrics: {
        first_contentful_paint_ms: 2413,
        largest_contentful_paint_ms: 4120,
        total_blocking_time_ms: 210,
        cumulative_layout_shift: 0.081,
        speed_index_ms: 3600,
        time_to_interactive_ms: 5100,
      },
    })
    // 0.35·50 + 0.25·80 + 0.2·90 + 0.2·100 = 75.5
    expect(body.mcs).toBe(76)
    expect(Date.parse(body.expires_at) - Date.parse(body.measured_at)).toBe(24 * 3600 * 1000)
    const call = psiCalls.at(-1)!
    expect(call.searchParams.get('url')).toBe(`${fixture.origin}/`)
    expect(call.searchParams.get('strategy')).toBe('mobile')
    expect(call.searchParams.getAll('category')).toEqual(['PERFORMANCE', 'ACCESSIBILITY', 'BEST_PRACTICES', 'SEO'])
  })

  it('serves the result from the 24-hour cache', async () => {
    const fixture = await site()
    await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    const calls = psiCalls.length
    const again = await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    expect(again.statusCode).toBe(200)
    expect(again.json().cached).toBe(true)
    expect(psiCalls.length).toBe(calls)
    const row = await app.db.selectFrom('mcs_results').select(['expires_at']).where('domain', '=', fixture.domain).executeTakeFirstOrThrow()
    expect(row.expires_at.getTime()).toBeGreaterThan(Date.now() + 23 * 3600 * 1000)
  })

  it('lets concurrent requests for one domain share one run', async () => {
    const fixture = await site()
    psiBehaviour.set(fixture.domain.split(':')[1]!, 'slow')
    const calls = psiCalls.length
    const answers = await Promise.all([1, 2, 3].map(() => get(app, `/api/mcs-check?domain=${fixture.domain}`)))
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200])
    expect(psiCalls.length - calls).toBe(1)
  })

  it('answers 503 with Retry-After when PSI is over quota', async () => {
    const fixture = await site()
    psiBehaviour.set(fixture.domain.split(':')[1]!, 'rate_limited')
    const res = await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('17')
    expect(res.json()).toMatchObject({ code: 'mcs_failed' })
    expect(await app.db.selectFrom('mcs_results').select('domain').where('domain', '=', fixture.domain).execute()).toEqual([])
  })

  it('answers 422 when Lighthouse cannot load the page, or the site does not answer at all', async () => {
    const fixture = await site()
    psiBehaviour.set(fixture.domain.split(':')[1]!, 'lighthouse_error')
    const res = await get(app, `/api/mcs-check?domain=${fixture.domain}`)
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'site_unreachable' })
    const calls = psiCalls.length
    const down = await get(app, `/api/mcs-check?domain=localhost:${await closedPort()}`)
    expect(down.statusCode).toBe(422)
    expect(down.json().detail).toMatch(/could not be reached/)
    expect(psiCalls.length).toBe(calls)
  })

  it('answers 503 with Retry-After instead of queueing without end', async () => {
    const fixtures = await Promise.all(Array.from({ length: 7 }, () => site()))
    for (const f of fixtures) psiBehaviour.set(f.domain.split(':')[1]!, 'slow')
    const answers = await Promise.all(fixtures.map((f) => get(app, `/api/mcs-check?domain=${f.domain}`)))
    const statuses = answers.map((a) => a.statusCode).sort()
    // Two run at once and four wait; the seventh is refused.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 503])
    const refused = answers.find((a) => a.statusCode === 503)!
    expect(refused.json().code).toBe('mcs_busy')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })
})
