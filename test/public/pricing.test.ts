import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { Pricing } from '../../src/domain/accounts/plans.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()

describe('GET /api/pricing', () => {
  it('lists the five plans and the add-ons with prices in euro cents', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/pricing' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = res.json()
    expect(new Ajv({ strict: true }).validate(Pricing, body)).toBe(true)
    expect(body.currency).toBe('EUR')
    expect(body.plans.map((p: { id: string }) => p.id)).toEqual(['free', 'lite', 'plus', 'pro', 'max'])
    expect(body.plans.map((p: { monthly_price_cents: number }) => p.monthly_price_cents)).toEqual([0, 900, 1900, 4900, 9900])
    // Yearly is twelve months less 20 %.
    expect(body.plans.find((p: { id: string }) => p.id === 'pro').yearly_price_cents).toBe(47040)
    expect(body.add_ons.map((a: { id: string }) => a.id)).toEqual([
      'extra_domain',
      'ai_sales_assistant',
      'premium_seo_reports',
      'extra_seat',
    ])
    expect(body.vat_note).toMatch(/VAT/)
  })

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/pricing' })
    const etag = first.headers['etag'] as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    const second = await app.inject({ method: 'GET', url: '/api/pricing', headers: { 'if-none-match': etag } })
    expect(second.statusCode).toBe(304)
    expect(second.body).toBe('')
  })

  it('refuses an unknown query parameter with problem+json', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/pricing?plan=pro' })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed', title: 'Bad Request' })
  })

  it('limits a client to 60 requests a minute, then answers 429 with Retry-After', async () => {
    const ip = '203.0.113.9'
    const statuses: number[] = []
    for (let i = 0; i < 61; i++) statuses.push((await app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: ip })).statusCode)
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true)
    expect(statuses[60]).toBe(429)
    const limited = await app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: ip })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(limited.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(limited.json()).toMatchObject({ status: 429, code: 'rate_limited' })
    // Another client is not affected.
    expect((await app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: '203.0.113.10' })).statusCode).toBe(200)
  })
})
