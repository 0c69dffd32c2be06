import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { API_SCOPES, createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { oauthToken } from '../rest/helpers.ts'
import { dashboardBrowser, get, post, signedIn } from './helpers.ts'

/** The version a form carries, as the browser would send it back. */
const versionIn = (body: string, action: string) =>
  cheerio.load(body)(`form[action="${action}"] input[name="_version"]`).first().attr('value')

// One site, three ways in: what the editor makes, /v1 and MCP read the same way, and what /v1
// makes, the editor changes; the form's version is the ETag /v1 hands out.
describe('the editor, /v1 and MCP see one site the same way', async () => {
  const { app, base } = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
  const person = await signedIn(app, 'owner@example.com')
  const accountId = person.user.accountId
  await updateAccount(app.db, accountId, { plan: 'pro' })
  const { secret } = await createApiToken(app.db, { accountId, name: 'ci', scopes: API_SCOPES })
  const v1 = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, etag: res.headers.get('etag'), json: (text ? JSON.parse(text) : null) as Record<string, any> } // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  const { cookie, form } = await dashboardBrowser(app, person, '/app/start')

  it('reads a site made in the editor over /v1 and MCP, with the editor’s version as its ETag', async () => {
    const created = await post(app, '/app/sites', cookie, form({ name: 'Corner Café', locales: ['en', 'fr'], default_locale: 'en' }))
    expect(created.statusCode, created.body).toBe(303)
    const siteId = /\/app\/sites\/(site_[A-Za-z0-9_-]+)/.exec(String(created.headers['location']))![1]!
    const added = await post(
      app,
      `/app/sites/${siteId}/pages`,
      cookie,
      form({ title: 'Menu', path: '/menu', locale: 'fr', description: 'Our menu.' }),
    )
    expect(added.statusCode).toBe(303)
    const pageId = /\/app\/pages\/(page_[A-Za-z0-9_-]+)/.exec(String(added.headers['location']))![1]!
    const block = await post(
      app,
      `/app/pages/${pageId}/blocks`,
      cookie,
      form({ type: 'cta', heading: 'Book a table', label: 'Call', href: 'tel:+331234' }),
    )
    expect(block.statusCode).toBe(303)

    const site = await v1('GET', `/sites/${siteId}`)
    expect(site.status).toBe(200)
    expect(site.json).toMatchObject({
      id: siteId,
      name: 'Corner Café',
      subdomain: 'corner-cafe.sites.test',
      status: 'draft',
      default_locale: 'en',
      locales: ['en', 'fr'],
    })
    const settings = `/app/sites/${siteId}/settings`
    expect(versionIn((await get(app, settings, cookie)).body, settings)).toBe(site.etag)
    const pages = await v1('GET', `/sites/${siteId}/pages`)
    expect(pages.json['data']).toEqual([
      expect.objectContaining({ id: pageId, path: '/menu', locale: 'fr', title: 'Menu', description: 'Our menu.' }),
    ])
    const blocks = await v1('GET', `/pages/${pageId}/blocks`)
    expect(blocks.json['data']).toEqual([
      expect.objectContaining({ type: 'cta', position: 0, content: { heading: 'Book a table', label: 'Call', href: 'tel:+331234' } }),
    ])

    const { token: mcpToken } = await oauthToken(app, accountId, ['mcp:read', 'mcp:tools'], `${base}/mcp`, 600, person.user.id)
    const mcp = await connect(base, mcpToken)
    const got = await mcp.callTool({ name: 'get_site', arguments: { site_id: siteId } })
    expect(got.isError, textOf(got)).toBeFalsy()
    expect(got.structuredContent).toEqual(site.json)
    const page = await mcp.callTool({ name: 'get_page', arguments: { page_id: pageId } })
    expect(page.isError, textOf(page)).toBeFalsy()
    expect(JSON.stringify(page.structuredContent)).toContain('Book a table')
    await mcp.close()

    const operations = await app.db
      .selectFrom('audit_log')
      .select('operation')
      .where('account_id', '=', accountId)
      .where('operation', 'like', 'dashboard.%')
      .where('method', '=', 'POST')
      .orderBy('id')
      .execute()
    expect(operations.map((o) => o.operation)).toEqual(['dashboard.sites.create', 'dashboard.pages.create', 'dashboard.blocks.create'])
  })

  it('edits a site made over /v1 in the editor; the change is what /v1 reads, and /v1’s old ETag is stale', async () => {
    const site = await v1('POST', '/sites', { name: 'API Bakery' })
    expect(site.status).toBe(201)
    const page = await v1('POST', `/sites/${site.json['id']}/pages`, { path: '/', title: 'Home' })
    const block = await v1('POST', `/pages/${page.json['id']}/blocks`, {
      type: 'faq',
      content: { items: [{ question: 'Open?', answer: 'Daily.' }] },
    })
    expect(block.status).toBe(201)

    const home = await get(app, `/app/sites/${site.json['id']}`, cookie)
    expect(home.statusCode).toBe(200)
    expect(home.body).toContain('api-bakery.sites.test')
    const url = `/app/blocks/${block.json['id']}`
    const edit = await get(app, url, cookie)
    const $ = cheerio.load(edit.body)
    expect($('input[name="items.0.question"]').attr('value')).toBe('Open?')
    expect(versionIn(edit.body, url)).toBe(block.etag)

    const saved = await post(
      app,
      url,
      cookie,
      form({
        _version: block.etag!,
        heading: 'Questions',
        'items.0.question': 'Open?',
        'items.0.answer': 'Daily, 7 to 18.',
        'items.1.question': 'Vegan?',
        'items.1.answer': 'Some.',
      }),
    )
    expect(saved.statusCode, saved.body).toBe(303)
    const read = await v1('GET', `/blocks/${block.json['id']}`)
    expect(read.json['content']).toEqual({
      heading: 'Questions',
      items: [
        { question: 'Open?', answer: 'Daily, 7 to 18.' },
        { question: 'Vegan?', answer: 'Some.' },
      ],
    })
    const stale = await v1(
      'PATCH',
      `/blocks/${block.json['id']}`,
      { content: { items: [{ question: 'x', answer: 'y' }] } },
      { 'if-match': block.etag! },
    )
    expect(stale.status).toBe(412)

    // And the other way: a change over /v1 makes the editor's open form stale.
    const pageUrl = `/app/pages/${page.json['id']}`
    const form0 = await get(app, pageUrl, cookie)
    const version = versionIn(form0.body, pageUrl)!
    expect(version).toBe((await v1('GET', `/pages/${page.json['id']}`)).etag)
    expect((await v1('PATCH', `/pages/${page.json['id']}`, { title: 'Welcome' })).status).toBe(200)
    const refused = await post(
      app,
      pageUrl,
      cookie,
      form({ _version: version, title: 'Home page', path: '/', locale: 'en', description: '' }),
    )
    expect(refused.statusCode).toBe(412)
    expect(cheerio.load(refused.body)('#f-title-saved').text()).toBe('Saved meanwhile: Welcome')
    expect((await v1('GET', `/pages/${page.json['id']}`)).json['title']).toBe('Welcome')
  })
})
