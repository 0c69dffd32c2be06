import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Ajv } from 'ajv'
import { ajvFormats } from '../../../src/infra/ajv-formats.ts'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { afterAll, describe, expect, it } from 'vitest'
import { nextDailyUpdate } from '../../../src/public/audits/cwv/field-data.ts'
import { CwvHistory, CwvLookup, CwvTrack } from '../../../src/domain/checks/web-vitals-schema.ts'
import { buildTestApp } from '../../helpers/app.ts'

const ajv = new Ajv({ strict: false })
ajvFormats(ajv)
const validBody = ajv.compile(Type.Union([CwvLookup, CwvHistory, CwvTrack]))

/**
 * A fake Chrome UX Report API on loopback answering records:queryRecord and
 * records:queryHistoryRecord in the real API's shapes (CLS values as strings, "NaN" densities and
 * null p75s for weeks without data, 404 NOT_FOUND without data, 429 RESOURCE_EXHAUSTED).
 */
const calls: Array<{ method: string; key: string | null; body: { origin: string; formFactor: string } }> = []

const bins = (edges: [number | string, number | string], densities: [number, number, number]) => [
  { start: typeof edges[0] === 'string' ? '0.00' : 0, end: edges[0], density: densities[0] },
  { start: edges[0], end: edges[1], density: densities[1] },
  { start: edges[1], density: densities[2] },
]
const period = { firstDate: { year: 2026, month: 10, day: 24 }, lastDate: { year: 2026, month: 11, day: 20 } }

function record(origin: string, formFactor: string) {
  const desktop = formFactor === 'DESKTOP'
  return {
    record: {
      key: { formFactor, origin },
      metrics: {
        cumulative_layout_shift: { histogram: bins(['0.10', '0.25'], [0.8512, 0.0921, 0.0567]), percentiles: { p75: '0.05' } },
        experimental_time_to_first_byte: { histogram: bins([800, 1800], [0.55, 0.3, 0.15]), percentiles: { p75: desktop ? 700 : 900 } },
        first_contentful_paint: { histogram: bins([1800, 3000], [0.4, 0.3, 0.3]), percentiles: { p75: 3200 } },
        interaction_to_next_paint: { histogram: bins([200, 500], [0.6, 0.3, 0.1]), percentiles: { p75: 350 } },
        largest_contentful_paint: { histogram: bins([2500, 4000], [0.7812, 0.1388, 0.08]), percentiles: { p75: desktop ? 1900 : 2100 } },
        navigation_types: { fractions: { navigate: 0.7, reload: 0.05, back_forward: 0.2, back_forward_cache: 0.05 } },
        round_trip_time: { percentiles: { p75: 120 } },
      },
      collectionPeriod: period,
    },
  }
}

function historyRecord(origin: string, formFactor: string) {
  const periods = [0, 1, 2].map((w) => ({
    firstDate: { year: 2026, month: 10, day: 10 + w * 7 },
    lastDate: { year: 2026, month: 11, day: 6 + w * 7 },
  }))
  return {
    record: {
      key: { formFactor, origin },
      metrics: {
        largest_contentful_paint: {
          histogramTimeseries: [
            { start: 0, end: 2500, densities: ['NaN', 0.71, 0.78] },
            { start: 2500, end: 4000, densities: ['NaN', 0.19, 0.14] },
            { start: 4000, densities: ['NaN', 0.1, 0.08] },
          ],
          percentilesTimeseries: { p75s: [null, 2700, 2100] },
        },
        cumulative_layout_shift: {
          histogramTimeseries: [
            { start: '0.00', end: '0.10', densities: [0.9, 0.85, 0.7] },
            { start: '0.10', end: '0.25', densities: [0.05, 0.1, 0.1] },
            { start: '0.25', densities: [0.05, 0.05, 0.2] },
          ],
          percentilesTimeseries: { p75s: ['0.02', '0.05', '0.30'] },
        },
      },
      collectionPeriods: periods,
    },
  }
}

const crux: Server = createServer((req, res) => {
  let raw = ''
  req.on('data', (c: Buffer) => (raw += c.toString()))
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://crux')
    const method = url.pathname.replace('/v1/records:', '')
    const body = JSON.parse(raw || '{}') as { origin: string; formFactor: string }
    calls.push({ method, key: url.searchParams.get('key'), body })
    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(payload))
    const host = new URL(body.origin).hostname
    if (url.searchParams.get('key') !== 'test-crux-key')
      return json(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } })
    if (host.startsWith('busy'))
      return json(
        429,
        { error: { code: 429, message: 'Quota exceeded for quota metric', status: 'RESOURCE_EXHAUSTED' } },
        { 'retry-after': '30' },
      )
    if (host.startsWith('broken')) return json(500, { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } })
    const notFound = () => json(404, { error: { code: 404, message: 'chrome ux report data not found', status: 'NOT_FOUND' } })
    if (host.startsWith('nodata') || (host.startsWith('phone-only') && body.formFactor === 'DESKTOP')) return notFound()
    if (method === 'queryRecord') return json(200, record(body.origin, body.formFactor))
    if (method === 'queryHistoryRecord') return json(200, historyRecord(body.origin, body.formFactor))
    json(404, { error: { code: 404, message: 'Not Found' } })
  })
})
await new Promise<void>((resolve) => crux.listen(0, '127.0.0.1', resolve))
const cruxUrl = `http://127.0.0.1:${(crux.address() as AddressInfo).port}/v1`
afterAll(async () => {
  crux.closeAllConnections()
  await new Promise((resolve) => crux.close(resolve))
})

let ip = 0
type Injectable = { inject: (o: object) => Promise<{ statusCode: number; json: () => any; headers: Record<string, unknown> }> }
const get = (app: Injectable, url: string) => app.inject({ method: 'GET', url, remoteAddress: `198.51.100.${++ip % 250}` })

describe('GET /api/cwv-tracker against the CrUX API', async () => {
  const { app } = await buildTestApp({ env: { CRUX_API_KEY: 'test-crux-key', CRUX_API_URL: cruxUrl } })

  it('looks up phone and desktop field data rated by the official thresholds', async () => {
    const res = await get(app, '/api/cwv-tracker?domain=fast.example')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validBody(body), JSON.stringify(validBody.errors)).toBe(true)
    expect(body).toMatchObject({ action: 'lookup', domain: 'fast.example', origin: 'https://fast.example', status: 'ok', cached: false })
    expect(body.collection_period).toEqual({ first_date: '2026-10-24', last_date: '2026-11-20' })
    const phone = body.form_factors.phone.metrics
    expect(phone.lcp).toEqual({
      p75: 2100,
      unit: 'ms',
      rating: 'good',
      distribution: { good: 0.7812, needs_improvement: 0.1388, poor: 0.08 },
      thresholds: { good: 2500, poor: 4000 },
    })
    expect(phone.inp).toMatchObject({ p75: 350, rating: 'needs_improvement', thresholds: { good: 200, poor: 500 } })
    expect(phone.cls).toMatchObject({
      p75: 0.05,
      unit: 'unitless',
      rating: 'good',
      distribution: { good: 0.8512, needs_improvement: 0.0921, poor: 0.0567 },
    })
    expect(phone.fcp).toMatchObject({ p75: 3200, rating: 'poor' })
    expect(phone.ttfb).toMatchObject({ p75: 900, rating: 'needs_improvement' })
    expect(body.form_factors.desktop.metrics.ttfb).toMatchObject({ p75: 700, rating: 'good' })
    expect(body.attribution).toMatchObject({ license: 'CC-BY-4.0', license_url: 'https://creativecommons.org/licenses/by/4.0/' })
    expect(body.expires_at).toBe(nextDailyUpdate(new Date()).toISOString())
    const mine = calls.filter((c) => c.body.origin === 'https://fast.example')
    expect(mine.map((c) => [c.method, c.body.formFactor, c.key])).toEqual([
      ['queryRecord', 'PHONE', 'test-crux-key'],
      ['queryRecord', 'DESKTOP', 'test-crux-key'],
    ])
  })

  it('serves a repeat from the cache until the next daily update', async () => {
    await get(app, '/api/cwv-tracker?domain=cached.example&action=lookup')
    const before = calls.length
    const again = await get(app, '/api/cwv-tracker?domain=CACHED.example')
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ cached: true, status: 'ok' })
    expect(calls.length).toBe(before)
  })

  it('turns CrUX 404 into 200 "not enough field data"', async () => {
    const res = await get(app, '/api/cwv-tracker?domain=nodata.example')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validBody(body)).toBe(true)
    expect(body).toMatchObject({ status: 'insufficient_data', form_factors: { phone: null, desktop: null }, collection_period: null })
    expect(body.message).toMatch(/not enough field data/i)
    const partial = (await get(app, '/api/cwv-tracker?domain=phone-only.example')).json()
    expect(partial.status).toBe('ok')
    expect(partial.form_factors.desktop).toBeNull()
    expect(partial.form_factors.phone.metrics.lcp.rating).toBe('good')
  })

  it('answers 503 with Retry-After when CrUX is over quota or failing', async () => {
    const busy = await get(app, '/api/cwv-tracker?domain=busy.example')
    expect(busy.statusCode).toBe(503)
    expect(busy.headers['retry-after']).toBe('30')
    expect(busy.json()).toMatchObject({ code: 'crux_unavailable' })
    const broken = await get(app, '/api/cwv-tracker?domain=broken.example')
    expect(broken.statusCode).toBe(503)
    expect(broken.headers['retry-after']).toBe('60')
  })

  it('keeps within the shared budget of 150 CrUX queries a minute', async () => {
    // Every instance counts in the database: fill this minute (and the next, should it turn).
    await sql`insert into cwv_quota (window_start, used) values (date_trunc('minute', now()), 149), (date_trunc('minute', now()) + interval '1 minute', 149)
      on conflict (window_start) do update set used = 149`.execute(app.db)
    const before = calls.length
    const res = await get(app, '/api/cwv-tracker?domain=budget.example')
    expect(res.statusCode).toBe(503)
    expect(res.json().code).toBe('crux_unavailable')
    const retry = Number(res.headers['retry-after'])
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(60)
    expect(calls.length).toBe(before)
    await sql`delete from cwv_quota`.execute(app.db)
    expect((await get(app, '/api/cwv-tracker?domain=budget.example')).statusCode).toBe(200)
  })

  it('returns the weekly history from queryHistoryRecord', async () => {
    const res = await get(app, '/api/cwv-tracker?action=history&domain=fast.example')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validBody(body), JSON.stringify(validBody.errors)).toBe(true)
    expect(body).toMatchObject({ action: 'history', status: 'ok', tracked: false, snapshots: [] })
    const phone = body.form_factors.phone
    expect(phone.collection_periods).toHaveLength(3)
    expect(phone.collection_periods[0]).toEqual({ first_date: '2026-10-10', last_date: '2026-11-06' })
    expect(phone.metrics.lcp).toEqual({
      unit: 'ms',
      p75: [null, 2700, 2100],
      rating: [null, 'needs_improvement', 'good'],
      good: [null, 0.71, 0.78],
      needs_improvement: [null, 0.19, 0.14],
      poor: [null, 0.1, 0.08],
    })
    expect(phone.metrics.cls.rating).toEqual(['good', 'good', 'poor'])
    expect(phone.metrics.inp).toBeNull()
    expect(calls.filter((c) => c.method === 'queryHistoryRecord' && c.body.origin === 'https://fast.example')).toHaveLength(2)
  })

  it('tracks a domain daily: a snapshot now, the next one after the next daily update', async () => {
    const res = await get(app, '/api/cwv-tracker?action=track&domain=tracked.example')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(validBody(body), JSON.stringify(validBody.errors)).toBe(true)
    expect(body).toMatchObject({ action: 'track', tracked: true, domain: 'tracked.example' })
    expect(Math.abs(Date.parse(body.next_snapshot_at) - Date.now())).toBeLessThan(10_000)

    // The job runner takes the snapshot job.
    const today = new Date().toISOString().slice(0, 10)
    let rows: unknown[] = []
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      rows = await app.db.selectFrom('cwv_snapshots').select('taken_on').where('domain', '=', 'tracked.example').execute()
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 100))
    }
    expect(rows).toHaveLength(1)

    const next = new Date(nextDailyUpdate(new Date()).getTime() + 30 * 60_000)
    let queued: Array<{ unique_key: string | null; run_at: Date }> = []
    for (let i = 0; i < 50 && queued.length === 0; i++) {
      queued = await app.db
        .selectFrom('jobs')
        .select(['unique_key', 'run_at'])
        .where('name', '=', 'cwv.snapshot')
        .where('state', '=', 'queued')
        .execute()
      if (queued.length === 0) await new Promise((r) => setTimeout(r, 100))
    }
    expect(queued).toEqual([{ unique_key: `tracked.example:daily:${next.toISOString().slice(0, 10)}`, run_at: next }])

    const history = (await get(app, '/api/cwv-tracker?action=history&domain=tracked.example')).json()
    expect(validBody(history)).toBe(true)
    expect(history.tracked).toBe(true)
    expect(history.snapshots).toHaveLength(1)
    expect(history.snapshots[0]).toMatchObject({
      taken_on: today,
      form_factors: { phone: { metrics: { lcp: { p75: 2100, rating: 'good' } } } },
    })

    // Tracking again the same day schedules nothing new.
    const again = (await get(app, '/api/cwv-tracker?action=track&domain=tracked.example')).json()
    expect(again).toMatchObject({ tracked_since: body.tracked_since, snapshots: 1, next_snapshot_at: next.toISOString() })
    expect(await app.db.selectFrom('jobs').select('id').where('name', '=', 'cwv.snapshot').execute()).toHaveLength(2)
  })

  it('keeps tracking when the snapshot of a day fails: the next one is scheduled first', async () => {
    const res = await get(app, '/api/cwv-tracker?action=track&domain=busy.example')
    expect(res.statusCode).toBe(200)
    const next = new Date(nextDailyUpdate(new Date()).getTime() + 30 * 60_000)
    let jobs: Array<{ unique_key: string | null; state: string; last_error: string | null }> = []
    for (let i = 0; i < 100; i++) {
      jobs = await app.db
        .selectFrom('jobs')
        .select(['unique_key', 'state', 'last_error'])
        .where('unique_key', 'like', 'busy.example:%')
        .orderBy('unique_key')
        .execute()
      if (jobs.some((j) => j.last_error)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const today = new Date().toISOString().slice(0, 10)
    expect(jobs).toEqual([
      { unique_key: `busy.example:daily:${next.toISOString().slice(0, 10)}`, state: 'queued', last_error: null },
      { unique_key: `busy.example:now:${today}`, state: 'queued', last_error: expect.stringMatching(/HTTP 429/) },
    ])
    expect(await app.db.selectFrom('cwv_snapshots').select('id').where('domain', '=', 'busy.example').execute()).toEqual([])
  })

  it.each([
    ['/api/cwv-tracker?action=delete&domain=example.com', 'validation_failed'],
    ['/api/cwv-tracker?action=lookup', 'invalid_domain'],
    ['/api/cwv-tracker?domain=', 'invalid_domain'],
    ['/api/cwv-tracker?domain=exa%20mple.com', 'invalid_domain'],
    ['/api/cwv-tracker?domain=localhost', 'invalid_domain'],
    ['/api/cwv-tracker?domain=example.com&other=1', 'validation_failed'],
  ])('answers 400 problem+json to %s', async (url, code) => {
    const res = await get(app, url)
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(res.json().code).toBe(code)
  })
})
