import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Site } from '../../src/domain/sites/sites.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

describe('where no published site answers', () => {
  let t: TestApp
  let unpublished: Site

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', SITES_DOMAIN: 'sites.test' } })
    const owner = await makeAccount(t.app)
    unpublished = await bakerySite(t.app, { accountId: owner.accountId })
    const published = await bakerySite(t.app, { accountId: owner.accountId, hostname: 'bakery.example' })
    expect((await buildSite(t.app, published.id)).status).toBe('succeeded')
  }, SETUP_TIMEOUT_MS)

  const get = (url: string, host: string, headers: Record<string, string> = BROWSER) =>
    t.app.inject({ method: 'GET', url, headers: { host, ...headers } })

  it('tells a browser in words that a site is not published yet, on its preview', async () => {
    const res = await get(`/s/${unpublished.id}/`, 'service.test')
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    const $ = cheerio.load(res.body)
    expect($('h1').text()).toBe('This site is not published yet')
    expect($('a').attr('href')).toBe('http://service.test/app')
    expect($('meta[name=robots]').attr('content')).toBe('noindex')
    // A client that does not ask for a page keeps the problem document.
    const api = await get(`/s/${unpublished.id}/`, 'service.test', { accept: 'application/json' })
    expect(api.statusCode).toBe(404)
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/)
  })

  it('tells a browser that no site has a platform address, on any page of it', async () => {
    for (const url of ['/', '/about', '/de/kontakt']) {
      const res = await get(url, 'nobody-here.sites.test')
      expect(res.statusCode, url).toBe(404)
      const $ = cheerio.load(res.body)
      expect($('h1').text(), url).toBe('No site at this address')
      expect($('p').first().text()).toContain('nobody-here.sites.test')
    }
    expect((await get('/', 'nobody-here.sites.test', { accept: '*/*' })).headers['content-type']).toMatch(/^application\/problem\+json/)
    const head = await t.app.inject({ method: 'HEAD', url: '/', headers: { host: 'nobody-here.sites.test', ...BROWSER } })
    expect(head.statusCode).toBe(404)
    expect(head.body).toBe('')
  })

  it("leaves the service's own host, other hosts and published sites as they were", async () => {
    expect((await get('/', 'service.test')).statusCode).toBe(200)
    expect((await get('/', 'bakery.example')).statusCode).toBe(200)
    // A host outside the platform's domain is not said to be a site's.
    expect((await get('/', 'elsewhere.example')).headers['content-type']).toMatch(/^application\/problem\+json/)
    expect((await get('/api/ready', 'nobody-here.sites.test', { accept: 'application/json' })).statusCode).toBe(200)
  })
})
