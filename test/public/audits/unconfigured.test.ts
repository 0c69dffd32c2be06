import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../../helpers/app.ts'

// The service as it starts with no settings for the checks: private networks refused, no
// Lighthouse provider, no CrUX key.
const { app } = await buildTestApp()

let ip = 0
const get = (url: string) => app.inject({ method: 'GET', url, remoteAddress: `198.51.100.${++ip % 250}` })

function expectProblem(res: Awaited<ReturnType<typeof get>>, status: number, code: string) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  expect(res.json()).toMatchObject({ status, code, type: `urn:problem-type:${code}` })
}

describe('without OUTBOUND_ALLOW_PRIVATE_NETWORKS', () => {
  it.each(['localhost', 'localhost:8080', '127.0.0.1', '[::1]', '169.254.169.254', '10.0.0.1', '[::ffff:127.0.0.1]'])(
    'refuses d=%s on every check before anything is fetched',
    async (d) => {
      expectProblem(await get(`/api/seo-check/audit?d=${encodeURIComponent(d)}`), 400, 'invalid_domain')
      expectProblem(await get(`/api/mcs-check?domain=${encodeURIComponent(d)}`), 400, 'invalid_domain')
      expectProblem(await get(`/api/cwv-tracker?domain=${encodeURIComponent(d)}`), 400, 'invalid_domain')
    },
  )

  it('stores nothing for refused domains', async () => {
    expect(await app.db.selectFrom('audit_reports').select('id').execute()).toEqual([])
  })
})

describe('GET /api/mcs-check without a provider', () => {
  it('answers 503 with a clear message when neither CHROME_PATH nor PSI_API_KEY is set', async () => {
    const res = await get('/api/mcs-check?domain=example.com')
    expectProblem(res, 503, 'mcs_unavailable')
    expect(res.json().detail).toMatch(/CHROME_PATH.*PSI_API_KEY/)
  })

  it.each(['', 'exa mple.com', 'example.com:8080', 'example.com/path'])('answers 400 to domain=%j', async (domain) => {
    const res = await get(`/api/mcs-check?domain=${encodeURIComponent(domain)}`)
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(['invalid_domain', 'validation_failed']).toContain(res.json().code)
  })

  it('answers 400 when the domain is missing', async () => {
    expectProblem(await get('/api/mcs-check'), 400, 'invalid_domain')
  })
})

describe('GET /api/cwv-tracker without CRUX_API_KEY', () => {
  it('answers 503 with a clear message', async () => {
    const res = await get('/api/cwv-tracker?domain=example.com')
    expectProblem(res, 503, 'cwv_unavailable')
    expect(res.json().detail).toMatch(/CRUX_API_KEY/)
  })

  it('still answers 400 for a missing domain first', async () => {
    const res = await get('/api/cwv-tracker')
    expectProblem(res, 400, 'invalid_domain')
    expect(res.json().detail).toBe('The query parameter domain is required')
  })
})
