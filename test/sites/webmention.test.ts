import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Site } from '../../src/domain/sites/sites.ts'
import { WEBMENTION_JOB } from '../../src/sites/webmention.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { eventually } from '../helpers/polling.ts'

const HOST = 'bakery.example'
const TARGET = `https://${HOST}/about`

const LINKING = `<!doctype html><title>Bread tour</title><p>We loved <a href="${TARGET}#oven">the bakery's oven</a>.</p>`
const NOT_LINKING =
  '<!doctype html><title>Other</title><p>Nothing about bread; only <a href="https://bakery.example.org/about">a lookalike</a>.</p>'

/** Someone else's blog on loopback: one post links to the bakery, one does not, one changes its mind. */
function blog(): Promise<{ origin: string; server: Server; pages: Record<string, string> }> {
  const pages: Record<string, string> = { '/links': LINKING, '/no-link': NOT_LINKING, '/edited': LINKING }
  const server = createServer((req, res) => {
    const body = pages[req.url ?? '']
    if (!body) return res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, pages })),
  )
}

describe('Webmentions', () => {
  let t: TestApp
  let site: Site
  let owner: TestAccount
  let source: Awaited<ReturnType<typeof blog>>

  const mention = (body: Record<string, string>, url = '/_wps/webmention', host = HOST) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(body).toString(),
    })
  const jobsDone = () =>
    eventually(async () => {
      const pending = await t.app.db
        .selectFrom('jobs')
        .select('id')
        .where('name', '=', WEBMENTION_JOB)
        .where('state', 'in', ['queued', 'running'])
        .execute()
      expect(pending).toEqual([])
    }, 15_000)
  const backlinks = async (account: TestAccount) =>
    t.app.inject({ method: 'GET', url: `/v1/sites/${site.id}/backlinks`, headers: { ...account.headers, host: 'service.test' } })

  beforeAll(async () => {
    source = await blog()
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
    owner = await makeAccount(t.app)
    site = await bakerySite(t.app, { accountId: owner.accountId, hostname: HOST })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
  }, SETUP_TIMEOUT_MS)
  afterAll(() => new Promise<void>((resolve) => source.server.close(() => resolve())))

  it('advertises the endpoint on every page, in the Link header and a link element', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/about', headers: { host: HOST } })
    expect(page.headers['link']).toBe('</_wps/webmention>; rel="webmention"')
    expect(page.body).toContain('<link rel="webmention" href="_wps/webmention">')
  })

  it('accepts a mention with 202, verifies that the source links to the target, and lists the backlink once', async () => {
    const accepted = await mention({ source: `${source.origin}/links`, target: TARGET })
    expect(accepted.statusCode).toBe(202)
    await jobsDone()
    expect((await mention({ source: `${source.origin}/links`, target: TARGET })).statusCode).toBe(202)
    await jobsDone()
    const list = await backlinks(owner)
    expect(list.statusCode).toBe(200)
    expect(list.json()).toMatchObject({
      data: [{ site_id: site.id, source: `${source.origin}/links`, target: TARGET }],
      meta: { total: 1, page: 1, per_page: 20 },
    })
    const events = await t.app.db
      .selectFrom('events')
      .selectAll()
      .where('site_id', '=', site.id)
      .where('type', '=', 'backlink.detected')
      .execute()
    expect(events).toHaveLength(1)
    expect(events[0]!.data).toMatchObject({ source: `${source.origin}/links`, target: TARGET })
  })

  it('refuses a mention whose source does not link to the target, or does not exist', async () => {
    expect((await mention({ source: `${source.origin}/no-link`, target: TARGET })).statusCode).toBe(202)
    expect((await mention({ source: `${source.origin}/gone`, target: `https://${HOST}/` })).statusCode).toBe(202)
    await jobsDone()
    const sources = (await backlinks(owner)).json<{ data: Array<{ source: string }> }>().data.map((b) => b.source)
    expect(sources).toEqual([`${source.origin}/links`])
  })

  it('announces backlink.detected once per source and target, even when a retracted backlink is verified again', async () => {
    const edited = `${source.origin}/edited`
    const announced = async () =>
      (
        await t.app.db.selectFrom('events').selectAll().where('site_id', '=', site.id).where('type', '=', 'backlink.detected').execute()
      ).filter((e) => e.data['source'] === edited)
    const listed = async () => (await backlinks(owner)).json<{ data: Array<{ source: string }> }>().data.some((b) => b.source === edited)
    expect((await mention({ source: edited, target: TARGET })).statusCode).toBe(202)
    await jobsDone()
    expect(await listed()).toBe(true)
    expect(await announced()).toHaveLength(1)

    // The source drops its link: the mention again retracts the backlink.
    source.pages['/edited'] = NOT_LINKING
    expect((await mention({ source: edited, target: TARGET })).statusCode).toBe(202)
    await jobsDone()
    expect(await listed()).toBe(false)

    // It links again: listed again, but not announced a second time.
    source.pages['/edited'] = LINKING
    expect((await mention({ source: edited, target: TARGET })).statusCode).toBe(202)
    await jobsDone()
    expect(await listed()).toBe(true)
    expect(await announced()).toHaveLength(1)
  })

  it('accepts a mention of the preview URL on the service host', async () => {
    const res = await mention(
      { source: `${source.origin}/no-link`, target: `http://service.test/s/${site.id}/about` },
      `/s/${site.id}/_wps/webmention`,
      'service.test',
    )
    expect(res.statusCode).toBe(202)
  })

  it('answers 400 to a mention that is not well-formed or not about this site', async () => {
    for (const body of [
      { source: 'not a url', target: TARGET },
      { source: 'ftp://example.org/x', target: TARGET },
      { source: TARGET, target: TARGET },
      { source: `${source.origin}/links`, target: 'https://elsewhere.example/about' },
      { source: `${source.origin}/links` },
    ]) {
      const res = await mention(body as Record<string, string>)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
  })

  it('keeps another account from the site’s backlinks (404)', async () => {
    const stranger = await makeAccount(t.app)
    expect((await backlinks(stranger)).statusCode).toBe(404)
  })
})
