import { describe, expect, it } from 'vitest'
import { RATE_LIMITS, scaledLimit } from '../../src/infra/rate-limit/budgets.ts'
import { buildTestApp } from '../helpers/app.ts'

// A twentieth of every budget: the public reads get 3 a minute, the audits 1.
const { app, config } = await buildTestApp({ env: { RATE_LIMIT_FACTOR: '0.05' } })

describe('the rate-limit table and route operations', () => {
  it('scales every entry of the table by RATE_LIMIT_FACTOR, never below one', () => {
    expect(scaledLimit(config, 'public')).toBe(3)
    expect(scaledLimit(config, 'audits')).toBe(1)
    for (const name of Object.keys(RATE_LIMITS) as Array<keyof typeof RATE_LIMITS>)
      expect(scaledLimit(config, name)).toBeGreaterThanOrEqual(1)
  })

  it('counts routes that name one entry against one budget per client (pricing and cwv-tracker share "public")', async () => {
    const from = (remoteAddress: string, url: string) => app.inject({ method: 'GET', url, remoteAddress })
    expect((await from('198.51.100.1', '/api/pricing')).statusCode).toBe(200)
    expect((await from('198.51.100.1', '/api/pricing')).statusCode).toBe(200)
    expect((await from('198.51.100.1', '/api/cwv-tracker?domain=example.com&action=lookup')).statusCode).not.toBe(429)
    const over = await from('198.51.100.1', '/api/pricing')
    expect(over.statusCode).toBe(429)
    expect(over.headers['content-type']).toContain('application/problem+json')
    // Another address has its own budget.
    expect((await from('198.51.100.2', '/api/pricing')).statusCode).toBe(200)
  })

  it('names every route of the public, agent and identity rooms with a unique dotted operation, published as its operationId', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId?: string }>>
    }>()
    const ours = Object.entries(doc.paths).filter(([path]) => /^\/(api\/|oauth\/|agent\/identity|\.well-known\/|signin|signout)/.test(path))
    const ids = ours.flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, id: op.operationId })),
    )
    expect(ids.length).toBeGreaterThan(25)
    for (const { at, id } of ids) expect({ at, id }).toEqual({ at, id: expect.stringMatching(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/) })
    expect(new Set(ids.map((i) => i.id)).size).toBe(ids.length)
  })
})
