import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { runAudit } from '../../src/domain/seo-audit/engine.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'

const tls = fileURLToPath(new URL('../fixtures/sites/tls/', import.meta.url))
const cert = readFileSync(`${tls}localhost-cert.pem`, 'utf8')
const key = readFileSync(`${tls}localhost-key.pem`, 'utf8')

/**
 * A TLS front on loopback port 443 (as Caddy would be), handing each request to the service: the
 * audit reads the site exactly as a crawler would, at https://localhost/. Its own loopback address
 * keeps it clear of anything else listening on 443.
 */
async function tlsFront(t: TestApp): Promise<{ address: string; server: Server }> {
  const address = `127.${Math.floor(Math.random() * 250) + 2}.${Math.floor(Math.random() * 250) + 2}.${Math.floor(Math.random() * 250) + 2}`
  const server = createServer({ key, cert }, (req, res) => {
    void t.app
      .inject({ method: req.method as 'GET', url: req.url ?? '/', headers: req.headers as Record<string, string> })
      .then((answer) => res.writeHead(answer.statusCode, answer.headers as Record<string, string>).end(answer.rawPayload))
  })
  await new Promise<void>((resolve) => server.listen(443, address, resolve))
  return { address, server }
}

describe('the SEO/AEO/GEO audit of a published site', () => {
  let t: TestApp
  let front: { address: string; server: Server }

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test' } })
    const account = await makeAccount(t.app)
    const site = await bakerySite(t.app, { accountId: account.accountId, hostname: 'localhost' })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    front = await tlsFront(t)
  }, SETUP_TIMEOUT_MS)
  afterAll(() => new Promise<void>((resolve) => (front ? front.server.close(() => resolve()) : resolve())))

  it('scores at least 95 on every axis, with the premium crawl of every page', async () => {
    const fetcher = createSafeFetcher({
      allowPrivateNetworks: true,
      ca: [cert],
      resolver: async () => [{ address: front.address, family: 4 }],
    })
    try {
      const report = await runAudit(fetcher, 'localhost', true)
      const problems = report.findings
        .filter((f) => f.severity !== 'info')
        .map((f) => `${f.rule} ${f.severity}: ${f.message} (${f.page ?? ''})`)
      expect(report.reachable).toBe(true)
      expect(report.pages_checked).toBeGreaterThanOrEqual(5)
      expect({ seo: report.axes.seo.score, aeo: report.axes.aeo.score, geo: report.axes.geo.score, problems }).toMatchObject({
        seo: expect.toBeOneOf([95, 96, 97, 98, 99, 100]),
        aeo: expect.toBeOneOf([95, 96, 97, 98, 99, 100]),
        geo: expect.toBeOneOf([95, 96, 97, 98, 99, 100]),
      })
    } finally {
      await fetcher.close()
    }
  })
})
