import { Ajv } from 'ajv'
import { ajvFormats } from '../../../src/infra/ajv-formats.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditReportSchema } from '../../../src/domain/seo-audit/schema.ts'
import { buildTestApp } from '../../helpers/app.ts'
import { closedPort, serveFixture, type FixtureSite } from '../../fixtures/sites/serve.ts'

// The app fetches fixture sites on loopback, which only OUTBOUND_ALLOW_PRIVATE_NETWORKS permits.
const { app, databaseUrl } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
// A second instance on the same server, which has answered nothing itself (PostgreSQL only: the
// embedded database belongs to one process).
const second = databaseUrl.startsWith('postgres')
  ? (await buildTestApp({ databaseUrl, env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })).app
  : undefined

const ajv = new Ajv({ strict: false })
ajvFormats(ajv)
const validReport = ajv.compile(AuditReportSchema)

let clean: FixtureSite
let defects: FixtureSite
beforeAll(async () => {
  clean = await serveFixture('clean')
  defects = await serveFixture('seo-defects', { delayMs: 30 })
})
afterAll(async () => {
  await clean.close()
  await defects.close()
})

let ipCounter = 0
const freshIp = () => `198.51.100.${++ipCounter}`
const get = (url: string, target = app) => target.inject({ method: 'GET', url, remoteAddress: freshIp() })

function expectProblem(res: Awaited<ReturnType<typeof get>>, status: number, code: string) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  expect(res.json()).toMatchObject({ status, code, type: `urn:problem-type:${code}` })
  expect(res.body).not.toMatch(/at .*\.ts:\d+/)
}

describe('GET /api/seo-check/audit', () => {
  it('answers a full report in the documented shape and stores it', async () => {
    const res = await get(`/api/seo-check/audit?d=${clean.domain}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validReport(body), JSON.stringify(validReport.errors)).toBe(true)
    expect(body).toMatchObject({ domain: clean.domain, premium: false, reachable: true, cached: false, pages_checked: 1 })
    expect(body.report_id).toMatch(/^aud_/)
    // Served over http on loopback: the only finding is the missing https.
    expect(body.findings.map((f: { rule: string }) => f.rule)).toEqual(['seo.https'])
    const row = await app.db.selectFrom('audit_reports').select(['domain', 'premium']).where('id', '=', body.report_id).executeTakeFirst()
    expect(row).toEqual({ domain: clean.domain, premium: false })
  })

  it('serves a repeat within the window from the store, and says so', async () => {
    const first = (await get(`/api/seo-check/audit?d=${clean.domain.toUpperCase()}`)).json()
    const hitsBefore = clean.hits.length
    const again = await get(`/api/seo-check/audit?d=${clean.domain}`)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ cached: true, report_id: first.report_id, generated_at: first.generated_at, score: first.score })
    expect(clean.hits.length).toBe(hitsBefore)
  })

  it('answers repeats byte for byte alike, whether this process or the store serves them', async () => {
    const site = await serveFixture('clean')
    try {
      const first = await get(`/api/seo-check/audit?d=${site.domain}`)
      expect(first.json()).toMatchObject({ cached: false })
      const repeats = [await get(`/api/seo-check/audit?d=${site.domain}`), await get(`/api/seo-check/audit?d=${site.domain}`)]
      // The second instance has not answered this domain: it reads the store.
      const fromStore = second ? [await get(`/api/seo-check/audit?d=${site.domain}`, second)] : []
      for (const res of [...repeats, ...fromStore]) {
        expect(res.statusCode).toBe(200)
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(res.headers['cache-control']).toBe('no-store')
        expect(res.body).toBe(repeats[0]!.body)
      }
      expect(validReport(repeats[0]!.json())).toBe(true)
      expect(repeats[0]!.json()).toMatchObject({ cached: true, report_id: first.json().report_id })
    } finally {
      await site.close()
    }
  })

  it('crawls internal pages with premium=1, kept apart from the single-page report', async () => {
    const res = await get(`/api/seo-check/audit?d=${clean.domain}&premium=1`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ premium: true, cached: false, pages_checked: 3 })
  })

  it('shares one crawl between identical requests made at the same time', async () => {
    const url = `/api/seo-check/audit?d=${defects.domain}`
    const [a, b, c] = await Promise.all([get(url), get(url), get(url)])
    expect([a, b, c].map((r) => r.statusCode)).toEqual([200, 200, 200])
    expect(new Set([a, b, c].map((r) => r.json().report_id)).size).toBe(1)
    expect(defects.hits.filter((h) => h === '/').length).toBe(1)
    expect(a.json().findings.map((f: { rule: string }) => f.rule)).toContain('seo.robots_directives')
  })

  it('answers 200 with reachable=false for a site that does not answer', async () => {
    const res = await get(`/api/seo-check/audit?d=localhost:${await closedPort()}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validReport(body)).toBe(true)
    expect(body).toMatchObject({ reachable: false, score: 0, pages_checked: 0 })
    expect(body.findings[0].rule).toBe('site.unreachable')
    // Not served from the store: the next request tries the site again.
    const again = (await get(`/api/seo-check/audit?d=${body.domain}`)).json()
    expect(again).toMatchObject({ reachable: false, cached: false })
    expect(again.report_id).not.toBe(body.report_id)
  })

  it.each([
    ['/api/seo-check/audit', 'invalid_domain'],
    ['/api/seo-check/audit?d=', 'invalid_domain'],
    ['/api/seo-check/audit?d=exa%20mple.com', 'invalid_domain'],
    ['/api/seo-check/audit?d=user%40example.com', 'invalid_domain'],
    ['/api/seo-check/audit?d=example.com%2Fpath', 'invalid_domain'],
    ['/api/seo-check/audit?d=ftp%3A%2F%2Fexample.com', 'invalid_domain'],
    [`/api/seo-check/audit?d=${'a'.repeat(301)}.com`, 'invalid_domain'],
    ['/api/seo-check/audit?d=example.com&premium=2', 'validation_failed'],
    ['/api/seo-check/audit?d=example.com&extra=1', 'validation_failed'],
  ])('answers 400 problem+json to %s', async (url, code) => {
    expectProblem(await get(url), 400, code)
  })

  it('limits a client to 10 audits a minute, then answers 429 with Retry-After', async () => {
    const ip = '203.0.113.77'
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      statuses.push((await app.inject({ method: 'GET', url: `/api/seo-check/audit?d=${clean.domain}`, remoteAddress: ip })).statusCode)
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200))
    const limited = await app.inject({ method: 'GET', url: `/api/seo-check/audit?d=${clean.domain}`, remoteAddress: ip })
    expectProblem(limited, 429, 'rate_limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })

  it('is described in the OpenAPI document with its response schemas, as are the other checks', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operation = doc.paths['/api/seo-check/audit'].get
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '429']))
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['d', 'premium'])
    const audit = operation.responses['200'].content['application/json'].schema
    expect(Object.keys(audit.properties)).toEqual(expect.arrayContaining(['score', 'axes', 'findings', 'quick_wins']))
    const mcs = doc.paths['/api/mcs-check'].get
    expect(Object.keys(mcs.responses)).toEqual(expect.arrayContaining(['200', '400', '422', '503']))
    expect(Object.keys(mcs.responses['200'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['mcs', 'categories', 'metrics']),
    )
    const cwv = doc.paths['/api/cwv-tracker'].get
    expect(Object.keys(cwv.responses)).toEqual(expect.arrayContaining(['200', '400', '503']))
    expect(cwv.responses['200'].content['application/json'].schema.anyOf).toHaveLength(3)
    expect(cwv.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['action', 'domain'])
  })
})
