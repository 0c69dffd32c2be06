import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import * as cheerio from 'cheerio'
import { beforeAll, describe, expect, it } from 'vitest'
import { rollbackTo } from '../../src/domain/sites/builds.ts'
import { deleteDomain } from '../../src/domain/sites/domains.ts'
import { primaryHostname, type Site } from '../../src/domain/sites/sites.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { makeAccount } from '../rest/helpers.ts'
import { englishPages, hostilePage, HOSTILE } from '../fixtures/hosted/content.ts'
import { addPages, bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

const HOST = 'bakery.example'

describe('hosted sites: build, publish and serve', () => {
  let t: TestApp
  let site: Site
  let firstBuild: string
  const get = (url: string, headers: Record<string, string> = {}, host = HOST) =>
    t.app.inject({ method: 'GET', url, headers: { host, ...headers } })

  beforeAll(async () => {
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', API_URL: 'http://api.service.test' } })
    const account = await makeAccount(t.app)
    site = await bakerySite(t.app, { accountId: account.accountId, hostname: HOST })
    // The service's API host made a domain of the site: it must still never serve the site.
    await t.app.db
      .insertInto('domains')
      .values({
        id: 'dom_api_host',
        site_id: site.id,
        hostname: 'api.service.test',
        status: 'active',
        primary: false,
        verification_value: 'x',
      })
      .execute()
    const build = await buildSite(t.app, site.id)
    expect(build).toMatchObject({ status: 'succeeded', error: null, pages: 7 })
    firstBuild = build.id
  }, SETUP_TIMEOUT_MS)

  it('goes live: the release pointer, status and publication time move in one step', async () => {
    const row = await t.app.db.selectFrom('sites').selectAll().where('id', '=', site.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'live', live_build_id: firstBuild })
    expect(row.published_at).toBeInstanceOf(Date)
    const event = await t.app.db
      .selectFrom('events')
      .selectAll()
      .where('site_id', '=', site.id)
      .where('type', '=', 'site.published')
      .executeTakeFirstOrThrow()
    expect(event.data).toMatchObject({ build_id: firstBuild, url: `https://${HOST}/`, pages: 7 })
  })

  it('serves every page of every locale, their Markdown and the crawler files by Host header', async () => {
    const home = await get('/')
    expect(home.statusCode).toBe(200)
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8')
    const $ = cheerio.load(home.body)
    expect($('h1').text()).toBe('Slow-baked bread from the old town')
    expect($('link[rel=canonical]').attr('href')).toBe(`https://${HOST}/`)
    for (const type of ['hero', 'text', 'features', 'faq', 'testimonial', 'cta'])
      expect($(`main > section.${type}, main > figure.quote`).length, type).toBeGreaterThan(0)
    expect(
      cheerio
        .load((await get('/about')).body)('main figure img')
        .attr('alt'),
    ).toBe('The stone oven with bread inside')
    expect(cheerio.load((await get('/contact')).body)('main form').length).toBe(1)
    const de = await get('/de/about')
    expect(de.statusCode).toBe(200)
    expect(cheerio.load(de.body)('html').attr('lang')).toBe('de')
    const md = await get('/about.md')
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expect(md.body).toMatch(/^# About Hansen Bakery/)
    expect((await get('/robots.txt')).body).toContain(`Sitemap: https://${HOST}/sitemap.xml`)
    expect((await get('/robots.txt')).body).toMatch(/User-agent: GPTBot[\s\S]*Disallow: \//)
    expect((await get('/sitemap.xml')).body).toContain(`<loc>https://${HOST}/de/about</loc>`)
    expect((await get('/llms.txt')).body).toMatch(/^# Hansen Bakery\n/)
    expect(home.headers['link']).toBe('</_wps/webmention>; rel="webmention"')
    expect(home.headers['content-security-policy']).toContain("script-src 'self' http://service.test")
  })

  it('answers with the ETag, 304 when the client has it, and the br or gzip copy it accepts', async () => {
    const plain = await get('/about')
    const etag = plain.headers['etag'] as string
    expect(etag).toMatch(/^"[\w-]{27}"$/)
    expect(plain.headers['cache-control']).toBe('public, max-age=60, must-revalidate')
    expect(plain.headers['vary']).toBe('accept-encoding')
    expect(plain.headers['content-encoding']).toBeUndefined()
    const br = await get('/about', { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body)
    const gz = await get('/about', { 'accept-encoding': 'gzip' })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body)
    expect((await get('/about', { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined()
    const cached = await get('/about', { 'if-none-match': `W/${etag}, "other"` })
    expect(cached.statusCode).toBe(304)
    expect(cached.body).toBe('')
    expect(cached.headers['etag']).toBe(etag)
    expect((await get('/about', { 'if-none-match': '"stale"' })).statusCode).toBe(200)
    const head = await t.app.inject({ method: 'HEAD', url: '/about', headers: { host: HOST, 'accept-encoding': 'gzip' } })
    expect(head.statusCode).toBe(200)
    expect(head.body).toBe('')
    expect(Number(head.headers['content-length'])).toBe(gz.rawPayload.length)
  })

  it('answers unknown paths with the site’s 404 page, and other methods with 405', async () => {
    const missing = await get('/no-such-page')
    expect(missing.statusCode).toBe(404)
    expect(cheerio.load(missing.body)('h1').text()).toBe('Page not found')
    expect((await get('/about/')).headers['location']).toBe('/about')
    expect((await get('/de')).headers['location']).toBe('/de/')
    const post = await t.app.inject({ method: 'POST', url: '/about', headers: { host: HOST }, payload: {} })
    expect(post.statusCode).toBe(405)
    expect(post.headers['allow']).toBe('GET, HEAD')
  })

  it('never serves a site on the service’s own hostnames, nor on a host no live site has', async () => {
    for (const host of ['service.test', 'api.service.test', 'unknown.example', 'SERVICE.TEST']) {
      const res = await get('/about', {}, host)
      expect(res.statusCode, host).toBe(404)
      expect(res.headers['content-type'], host).toMatch(/^application\/problem\+json/)
    }
    expect((await get('/api/pricing', {}, 'service.test')).statusCode).toBe(200)
    expect((await get('/about', {}, `${HOST.toUpperCase()}.`)).statusCode).toBe(200)
  })

  it('previews the latest build under /s/{site_id}/ on the service host, kept out of search results', async () => {
    const preview = await get(`/s/${site.id}/de/about`, {}, 'service.test')
    expect(preview.statusCode).toBe(200)
    expect(preview.headers['x-robots-tag']).toBe('noindex')
    expect(preview.headers['link']).toBe(`</s/${site.id}/_wps/webmention>; rel="webmention"`)
    expect((await get(`/s/${site.id}`, {}, 'service.test')).headers['location']).toBe(`/s/${site.id}/`)
    expect((await get(`/s/${site.id}/nothing`, {}, 'service.test')).statusCode).toBe(404)
    expect((await get('/s/site_unknown/', {}, 'service.test')).statusCode).toBe(404)
  })

  it('answers Caddy’s on-demand TLS question for active domains of live sites only', async () => {
    const ask = (domain: string) =>
      t.app.inject({ method: 'GET', url: `/internal/tls-allowed?domain=${encodeURIComponent(domain)}`, headers: { host: 'localhost' } })
    expect((await ask(HOST)).statusCode).toBe(200)
    expect((await ask('unknown.example')).statusCode).toBe(404)
    expect((await t.app.inject({ method: 'GET', url: '/internal/tls-allowed', headers: { host: 'localhost' } })).statusCode).toBe(400)
  })

  it('rolls back to an earlier release and publishes a new one within a second', async () => {
    await t.app.db
      .updateTable('pages')
      .set({ title: 'About the bakery, second edition' })
      .where('site_id', '=', site.id)
      .where('path', '=', '/about')
      .where('locale', '=', 'en')
      .execute()
    const second = await buildSite(t.app, site.id)
    expect(second.status).toBe('succeeded')
    await eventually(async () =>
      expect(
        cheerio
          .load((await get('/about')).body)('h1')
          .text(),
      ).toBe('About the bakery, second edition'),
    )
    await rollbackTo(t.app.db, site.id, firstBuild)
    await eventually(async () =>
      expect(
        cheerio
          .load((await get('/about')).body)('h1')
          .text(),
      ).toBe('About Hansen Bakery'),
    )
    // The preview shows the latest build, whatever is live.
    expect(
      cheerio
        .load((await get(`/s/${site.id}/about`, {}, 'service.test')).body)('h1')
        .text(),
    ).toBe('About the bakery, second edition')
  })

  it.skipIf(!onPostgres)('shows a release change to every instance within a second', async () => {
    const other = await buildTestApp({
      databaseUrl: t.databaseUrl,
      env: { BASE_URL: 'http://service.test', API_URL: 'http://api.service.test', JOB_CONCURRENCY: '0' },
    })
    const title = async (app: TestApp['app']) =>
      cheerio
        .load((await app.inject({ method: 'GET', url: '/about', headers: { host: HOST } })).body)('h1')
        .text()
    const live = await t.app.db.selectFrom('sites').select('live_build_id').where('id', '=', site.id).executeTakeFirstOrThrow()
    const earlier = await t.app.db
      .selectFrom('builds')
      .select('id')
      .where('site_id', '=', site.id)
      .where('status', '=', 'succeeded')
      .where('id', '<>', live.live_build_id!)
      .executeTakeFirstOrThrow()
    const before = await title(other.app)
    await rollbackTo(t.app.db, site.id, earlier.id)
    await eventually(async () => expect(await title(other.app)).not.toBe(before), 1000)
    await rollbackTo(t.app.db, site.id, live.live_build_id!)
    await eventually(async () => expect(await title(other.app)).toBe(before), 1000)
  })

  it('records a failed build and leaves the live release untouched', async () => {
    const before = await t.app.db.selectFrom('sites').select('live_build_id').where('id', '=', site.id).executeTakeFirstOrThrow()
    // A page at /about.md would overwrite the Markdown alternate of /about.
    await addPages(t.app, site, [
      {
        path: '/about.md',
        locale: 'en',
        title: 'Clash',
        description: 'A page where a file of the release already is.',
        updatedAt: new Date(),
        blocks: [],
      },
    ])
    const failed = await buildSite(t.app, site.id)
    expect(failed).toMatchObject({ status: 'failed', pages: null, error: 'two files of the release would live at /about.md' })
    const after = await t.app.db.selectFrom('sites').select('live_build_id').where('id', '=', site.id).executeTakeFirstOrThrow()
    expect(after.live_build_id).toBe(before.live_build_id)
    expect(await t.app.db.selectFrom('build_files').select('path').where('build_id', '=', failed.id).execute()).toEqual([])
    expect((await get('/about')).statusCode).toBe(200)
    await t.app.db.deleteFrom('pages').where('site_id', '=', site.id).where('path', '=', '/about.md').execute()
  })

  it('stops serving a removed domain at once', async () => {
    const other = 'www.bakery.example'
    await t.app.db
      .insertInto('domains')
      .values({ id: 'dom_www', site_id: site.id, hostname: other, status: 'active', primary: false, verification_value: 'y' })
      .execute()
    await eventually(async () => expect((await get('/', {}, other)).statusCode).toBe(200))
    const domain = await t.app.db.selectFrom('domains').selectAll().where('id', '=', 'dom_www').executeTakeFirstOrThrow()
    await deleteDomain(t.app.db, domain)
    await eventually(async () => expect((await get('/', {}, other)).statusCode).toBe(404), 200)
    const tls = await t.app.inject({ method: 'GET', url: `/internal/tls-allowed?domain=${other}`, headers: { host: 'localhost' } })
    expect(tls.statusCode).toBe(404)
  })

  it('escapes hostile content in the served page', async () => {
    const account = await makeAccount(t.app)
    const evil = await bakerySite(t.app, {
      accountId: account.accountId,
      hostname: 'evil.example',
      pages: [hostilePage(new Date())],
      raw: true,
    })
    expect((await buildSite(t.app, evil.id)).status).toBe('succeeded')
    const page = await get('/', {}, 'evil.example')
    const $ = cheerio.load(page.body)
    expect($('script').length).toBe(1)
    expect($('script').attr('type')).toBe('application/ld+json')
    expect(page.body).not.toContain(HOSTILE.script)
    expect($('[onmouseover], [onerror]').length).toBe(0)
    for (const url of $('[href]:not(link[rel=icon]),[src]')
      .map((_, el) => $(el).attr('href') ?? $(el).attr('src'))
      .get())
      expect(url).not.toMatch(/^\s*(javascript|data):/i)
  })

  it('calls canonical the domain the API names the site by: primary first, else the earliest verified', async () => {
    const account = await makeAccount(t.app)
    const named = await bakerySite(t.app, { accountId: account.accountId, pages: [englishPages(new Date())[0]!] })
    // Added first but verified last: the earliest verified one, not the earliest added, names the site.
    await t.app.db
      .insertInto('domains')
      .values([
        {
          id: 'dom_canon_added_first',
          site_id: named.id,
          hostname: 'added-first.example',
          status: 'active',
          primary: false,
          verification_value: 'a',
          verified_at: new Date('2026-03-01T00:00:00Z'),
          created_at: new Date('2026-01-01T00:00:00Z'),
        },
        {
          id: 'dom_canon_verified_first',
          site_id: named.id,
          hostname: 'verified-first.example',
          status: 'active',
          primary: false,
          verification_value: 'b',
          verified_at: new Date('2026-02-01T00:00:00Z'),
          created_at: new Date('2026-01-02T00:00:00Z'),
        },
      ])
      .execute()
    const canonical = async () => {
      expect((await buildSite(t.app, named.id)).status).toBe('succeeded')
      const shown = (
        await t.app.db.selectFrom('sites').select(primaryHostname.as('domain')).where('id', '=', named.id).executeTakeFirstOrThrow()
      ).domain
      let href: string | undefined
      await eventually(async () => {
        href = cheerio
          .load((await get('/', {}, 'added-first.example')).body)('link[rel=canonical]')
          .attr('href')
        expect(href).toBe(`https://${shown}/`)
      })
      return href
    }
    expect(await canonical()).toBe('https://verified-first.example/')
    await t.app.db.updateTable('domains').set({ primary: true }).where('id', '=', 'dom_canon_added_first').execute()
    expect(await canonical()).toBe('https://added-first.example/')
  })
})
