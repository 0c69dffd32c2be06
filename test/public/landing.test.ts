import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadPricing } from '../../src/domain/accounts/plans.ts'
import { onPostgres } from '../helpers/database.ts'
import { seriousFindings } from '../helpers/accessibility.ts'
import { DESKTOP, haveBrowser, launchBrowser, PHONE } from '../helpers/browser.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite } from '../sites/helpers.ts'
import { eventually } from '../helpers/polling.ts'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: string
}

/** One request over a real connection, with the Host header a browser would send for `host`. */
function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: new URL(base).port, path, method, headers: { host: new URL(base).host, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => {
            const body = Buffer.concat(chunks)
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') })
          })
      },
    )
    req.on('error', reject).end()
  })
}

const pricing = loadPricing()

describe('the front door', () => {
  let t: LiveApp

  beforeAll(async () => {
    t = await startLiveApp({ env: { API_URL: 'http://api.front.test' } })
  }, 120_000)

  it("answers GET / on the service's host with the landing page: what it does, the plans, the ways in", async () => {
    const res = await get(t.base, '/')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    const $ = cheerio.load(res.text)
    expect($('html').attr('lang')).toBe('en')
    expect($('title').text()).toMatch(/Web Presence/)
    expect($('meta[name=description]').attr('content')?.length).toBeGreaterThan(50)
    expect($('link[rel=canonical]').attr('href')).toBe(`${t.base}/`)
    expect($('h1').length).toBe(1)
    for (const landmark of ['header', 'nav', 'main#main', 'footer']) expect($(landmark).length, landmark).toBeGreaterThan(0)
    expect($('a.skip').attr('href')).toBe('#main')
    expect($('script').length).toBe(0)

    const link = (name: string) => $('a').filter((_, a) => $(a).text().trim() === name)
    expect(link('Start free').attr('href')).toBe('/app/start')
    expect(link('Sign in').first().attr('href')).toBe('/signin')
    expect($('a[href="/openapi.json"]').length).toBeGreaterThan(0)
    expect($('a[href="/docs"]').length).toBeGreaterThan(0)

    // Every plan of the price list, with its price and features; every add-on.
    const cards = $('#plans ~ ul.grid > li, #plans + ul.grid > li')
    expect(cards.map((_, c) => $(c).find('h3').text()).get()).toEqual(pricing.plans.map((p) => p.name))
    pricing.plans.forEach((plan, i) => {
      const card = cards.eq(i)
      const price = card.find('.price').text()
      expect(price).toBe(plan.monthly_price_cents === 0 ? 'Free' : `€${plan.monthly_price_cents / 100} a month`)
      expect(
        card
          .find('li')
          .map((_, li) => $(li).text())
          .get(),
        // Each feature of the price list, besides what the card adds from the plan's figures (its storage).
      ).toEqual(expect.arrayContaining(plan.features))
    })
    for (const addOn of pricing.add_ons) expect($('main').text()).toContain(addOn.name)
    expect($('main').text()).toContain(pricing.vat_note)
  })

  it('is cacheable: ETag and 304, br and gzip copies, HEAD without a body', async () => {
    const plain = await get(t.base, '/')
    const etag = plain.headers['etag'] as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(plain.headers['cache-control']).toBe('public, max-age=300')
    expect(plain.headers['vary']).toBe('accept-encoding')
    const again = await get(t.base, '/', { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    const br = await get(t.base, '/', { 'accept-encoding': 'br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(br.body).toString('utf8')).toBe(plain.text)
    const gzip = await get(t.base, '/', { 'accept-encoding': 'gzip' })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.body).toString('utf8')).toBe(plain.text)
    expect(br.body.length).toBeLessThan(4096)
    const head = await get(t.base, '/', {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
  })

  it("answers the API host too, an unknown host 404, and a hosted site's host with the site itself", async () => {
    expect((await get(t.base, '/', { host: 'api.front.test' })).status).toBe(200)
    const unknown = await get(t.base, '/', { host: 'elsewhere.example' })
    expect(unknown.status).toBe(404)
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect((await get(t.base, '/', { host: 'nobody.localhost' })).status).toBe(404)

    const account = await makeAccount(t.app)
    const site = await bakerySite(t.app, { accountId: account.accountId, hostname: 'shop.front.test' })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    for (const host of ['shop.front.test', `${site.slug}.localhost`]) {
      await eventually(async () => {
        const home = await get(t.base, '/', { host })
        expect(home.status).toBe(200)
        expect(cheerio.load(home.text)('h1').text()).toBe('Slow-baked bread from the old town')
      })
    }
  })

  it('serves the documentation at /docs, with contents and no link into the repository', async () => {
    const res = await get(t.base, '/docs')
    expect(res.status).toBe(200)
    expect(res.headers['cache-control']).toBe('public, max-age=300')
    const $ = cheerio.load(res.text)
    expect($('h1').text()).toBe('Web Presence Service')
    expect($('link[rel=canonical]').attr('href')).toBe(`${t.base}/docs`)
    const contents = $('nav[aria-label=Contents] a')
    expect(contents.length).toBeGreaterThan(5)
    for (const a of contents.toArray()) expect($(`main [id="${$(a).attr('href')!.slice(1)}"]`).length, $(a).attr('href')).toBe(1)
    expect($('main').text()).toContain('SITES_DOMAIN')
    for (const a of $('main a').toArray()) expect($(a).attr('href')).toMatch(/^(https?:|mailto:|#|\/)/)
    expect($('script').length).toBe(0)
  })

  it.skipIf(!haveBrowser || onPostgres)(
    'has no serious or critical axe violation, on a phone and on a desktop',
    { timeout: 60_000 },
    async () => {
      const browser = await launchBrowser()
      const page = await (await browser.newContext({ javaScriptEnabled: true })).newPage()
      for (const path of ['/', '/docs']) {
        await page.goto(`${t.base}${path}`)
        for (const viewport of [PHONE, DESKTOP]) {
          await page.setViewportSize(viewport)
          expect(await seriousFindings(page), `${path} ${viewport.width}px`).toEqual([])
        }
      }
    },
  )
})
