import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, preClaimToken, registerAgent } from './helpers.ts'

/** A small Chrome UX Report API on loopback: one phone and one desktop record in the real API's shapes, 404 NOT_FOUND for nodata.*. */
const crux = createServer((req, res) => {
  let raw = ''
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
  req.on('end', () => {
    const body = JSON.parse(raw || '{}') as { origin: string; formFactor: string }
    res.setHeader('content-type', 'application/json; charset=UTF-8')
    if (new URL(body.origin).hostname.startsWith('nodata')) {
      res.writeHead(404).end(JSON.stringify({ error: { code: 404, message: 'chrome ux report data not found', status: 'NOT_FOUND' } }))
      return
    }
    const lcp = {
      histogram: [
        { start: 0, end: 2500, density: 0.8 },
        { start: 2500, end: 4000, density: 0.15 },
        { start: 4000, density: 0.05 },
      ],
      percentiles: { p75: 1800 },
    }
    const period = { firstDate: { year: 2026, month: 10, day: 24 }, lastDate: { year: 2026, month: 11, day: 20 } }
    res.writeHead(200).end(JSON.stringify({ record: { key: body, metrics: { largest_contentful_paint: lcp }, collectionPeriod: period } }))
  })
})
await new Promise<void>((resolve) => crux.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise((resolve) => crux.close(resolve)))

const { base } = await startLiveApp({
  env: {
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    CRUX_API_KEY: 'test-key',
    CRUX_API_URL: `http://127.0.0.1:${(crux.address() as AddressInfo).port}/v1`,
    RATE_LIMIT_FACTOR: '10',
  },
})
const site = await serveFixtureForFile('clean')
const token = await preClaimToken(base, await registerAgent(base))

describe('public tools for any agent (mcp:read)', () => {
  it('describes every tool with title, annotations and input and output schemas', async () => {
    const client = await connect(base, token)
    const { tools } = await client.listTools()
    const publicOnes = tools.filter((t) => ['get_pricing', 'audit_domain', 'check_site_quality', 'get_core_web_vitals'].includes(t.name))
    expect(publicOnes).toHaveLength(4)
    for (const tool of tools) {
      expect(tool.title, tool.name).toEqual(expect.any(String))
      expect(tool.description!.length, tool.name).toBeGreaterThan(20)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type, tool.name).toBe('object')
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      })
    }
    expect(tools.find((t) => t.name === 'audit_domain')?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true })
  })

  it('get_pricing answers the price list as structured content and as text', async () => {
    const client = await connect(base, token)
    const result = await client.callTool({ name: 'get_pricing', arguments: {} })
    expect(result.isError).toBeFalsy()
    const pricing = result.structuredContent as { currency: string; plans: Array<{ id: string }> }
    expect(pricing.currency).toBe('EUR')
    expect(pricing.plans.map((p) => p.id)).toEqual(['free', 'lite', 'plus', 'pro', 'max'])
    const [text] = result.content as Array<{ type: string; text: string }>
    expect(JSON.parse(text!.text)).toEqual(pricing)
    const api = await (await fetch(`${base}/api/pricing`)).json()
    expect(pricing).toEqual(api)
  })

  it('audit_domain audits a site on loopback and answers the stored report; a repeat is cached', async () => {
    const client = await connect(base, token, 'legacy')
    const first = await client.callTool({ name: 'audit_domain', arguments: { domain: site.domain } })
    expect(first.isError).toBeFalsy()
    const report = first.structuredContent as {
      report_id: string
      domain: string
      score: number
      cached: boolean
      reachable: boolean
      axes: object
    }
    expect(report).toMatchObject({ domain: site.domain, reachable: true, cached: false, report_id: expect.stringMatching(/^aud_/) })
    expect(report.score).toBeGreaterThan(80)
    const again = await client.callTool({ name: 'audit_domain', arguments: { domain: site.domain } })
    expect(again.structuredContent).toMatchObject({ report_id: report.report_id, cached: true })
  })

  it('refuses an invalid domain with a tool error naming the problem, not a protocol failure', async () => {
    const client = await connect(base, token)
    const result = await client.callTool({ name: 'audit_domain', arguments: { domain: 'not a domain' } })
    expect(result.isError).toBe(true)
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^invalid_domain: /)
  })

  it('check_site_quality without a Lighthouse provider is a tool error saying what is missing', async () => {
    const client = await connect(base, token)
    const result = await client.callTool({ name: 'check_site_quality', arguments: { domain: 'example.com' } })
    expect(result.isError).toBe(true)
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/CHROME_PATH|PSI_API_KEY/)
  })

  it('get_core_web_vitals reads field data from the CrUX API, and says when there is too little', async () => {
    const client = await connect(base, token)
    const result = await client.callTool({ name: 'get_core_web_vitals', arguments: { domain: 'fast.example' } })
    expect(result.isError).toBeFalsy()
    const body = result.structuredContent as {
      action: string
      status: string
      form_factors: { phone: { metrics: { lcp: { p75: number; rating: string } } } }
    }
    expect(body).toMatchObject({ action: 'lookup', status: 'ok' })
    expect(body.form_factors.phone.metrics.lcp).toMatchObject({ p75: 1800, rating: 'good' })
    const none = await client.callTool({ name: 'get_core_web_vitals', arguments: { domain: 'nodata.example' } })
    expect(none.structuredContent).toMatchObject({ status: 'insufficient_data' })
  })
})
