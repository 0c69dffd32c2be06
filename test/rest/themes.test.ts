import { request as httpRequest } from 'node:http'
import { GraphQLClient } from 'graphql-request'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'
import { makeAccount, oauthToken, type TestAccount } from './helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

function api(base: string, account: TestAccount) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...account.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : null) as Json }
  }
}

function hostGet(base: string, host: string, path: string, headers: Record<string, string> = {}) {
  const port = Number(new URL(base).port)
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('themes on /v1, GraphQL and MCP, and on the published site', () => {
  let t: LiveApp
  let owner: TestAccount
  let call: ReturnType<typeof api>

  beforeAll(async () => {
    t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
    owner = await makeAccount(t.app, 'pro')
    call = api(t.base, owner)
  }, SETUP_TIMEOUT_MS)

  it('lists eight presets with AA colours, the font pairs and the corners', async () => {
    const res = await call('GET', '/v1/themes')
    expect(res.status).toBe(200)
    expect(res.json['presets']).toHaveLength(8)
    expect(res.json['presets'][1]).toMatchObject({ id: 'bakery', font_pair: 'classic', corners: 'round', colors: { on_button: '#ffffff' } })
    expect(res.json['font_pairs'].map((p: Json) => p.id)).toContain('modern')
    expect(res.json['corners']).toEqual(['square', 'soft', 'round'])
    // The plans' rules hold: no API on free.
    const free = await makeAccount(t.app, 'free')
    expect((await api(t.base, free)('GET', '/v1/themes')).json['code']).toBe('plan_required')
  })

  it('sets a theme at creation and changes it; a bad one is refused naming the field, nothing stored', async () => {
    const created = await call('POST', '/v1/sites', { name: 'Boulangerie', theme: { preset: 'bakery' } })
    expect(created.status).toBe(201)
    expect(created.json['theme']).toEqual({ preset: 'bakery', brand_color: '#a3461a', font_pair: 'classic', corners: 'round' })
    const id = created.json['id']
    const changed = await call('PATCH', `/v1/sites/${id}`, { theme: { brand_color: '#FFD84D', corners: 'square' } })
    expect(changed.status).toBe(200)
    expect(changed.json['theme']).toEqual({ preset: 'bakery', brand_color: '#ffd84d', font_pair: 'classic', corners: 'square' })
    for (const [theme, field] of [
      [{ preset: 'neon' }, 'theme.preset'],
      [{ brand_color: 'red' }, 'theme.brand_color'],
      [{ font_pair: 'comic' }, 'theme.font_pair'],
      [{ corners: 'round', shadow: true }, 'theme'],
    ] as const) {
      const bad = await call('PATCH', `/v1/sites/${id}`, { theme })
      expect(bad.status, JSON.stringify(theme)).toBe(400)
      expect(bad.headers.get('content-type')).toContain('application/problem+json')
      expect(bad.json['detail']).toContain(field.split('.').pop())
    }
    expect((await call('GET', `/v1/sites/${id}`)).json['theme']['brand_color']).toBe('#ffd84d')
    // Another account's site is not found; a read-only token may not change it.
    const stranger = await makeAccount(t.app, 'pro')
    expect((await api(t.base, stranger)('PATCH', `/v1/sites/${id}`, { theme: { preset: 'fresh' } })).status).toBe(404)
    const { secret } = await createApiToken(t.app.db, { accountId: owner.accountId, name: 'reader', scopes: ['read:sites'] })
    const reader = { ...owner, headers: { authorization: `Bearer ${secret}` } }
    const refused = await api(t.base, reader)('PATCH', `/v1/sites/${id}`, { theme: { preset: 'fresh' } })
    expect(refused.status).toBe(403)
    expect(refused.json['code']).toBe('insufficient_scope')
  })

  it('reads and changes the theme over GraphQL and MCP', async () => {
    const created = await call('POST', '/v1/sites', { name: 'Salon' })
    const id = created.json['id']
    const gql = new GraphQLClient(`${t.base}/v1/graphql`, { headers: owner.headers, errorPolicy: 'all' })
    const themes = await gql.rawRequest<Json>(
      '{ themes { presets { id colors { button onButton } } fontPairs { id heading body } corners } }',
    )
    expect(themes.data['themes']['presets']).toHaveLength(8)
    expect(themes.data['themes']['fontPairs'][1]).toEqual({ id: 'classic', heading: 'Playfair Display', body: 'Source Sans 3' })
    const updated = await gql.rawRequest<Json>(
      'mutation($input: UpdateSiteInput!) { updateSite(input: $input) { theme { preset brandColor fontPair corners } } }',
      { input: { id, theme: { preset: 'salon', brandColor: '#336699' } } },
    )
    expect(updated.errors).toBeUndefined()
    expect(updated.data['updateSite']['theme']).toEqual({ preset: 'salon', brandColor: '#336699', fontPair: 'friendly', corners: 'round' })
    const bad = await gql.rawRequest<Json>('mutation($input: UpdateSiteInput!) { updateSite(input: $input) { id } }', {
      input: { id, theme: { brandColor: 'blue' } },
    })
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')
    expect(bad.errors?.[0]?.extensions?.field).toBe('theme.brandColor')

    const { token } = await oauthToken(t.app, owner.accountId, ['mcp:read', 'mcp:tools'], `${t.base}/mcp`)
    const mcp = await connect(t.base, token)
    const listed = await mcp.callTool({ name: 'list_themes', arguments: {} })
    expect(listed.isError, textOf(listed)).toBeFalsy()
    expect((listed.structuredContent as Json)['presets']).toHaveLength(8)
    const set = await mcp.callTool({ name: 'update_site', arguments: { site_id: id, theme: { preset: 'workshop' } } })
    expect(set.isError, textOf(set)).toBeFalsy()
    expect((set.structuredContent as Json)['theme']).toEqual({
      preset: 'workshop',
      brand_color: '#b34700',
      font_pair: 'geometric',
      corners: 'square',
    })
    const wrong = await mcp.callTool({ name: 'update_site', arguments: { site_id: id, theme: { corners: 'wavy' } } })
    expect(wrong.isError).toBe(true)
    await mcp.close()
  })

  it('publishes the theme: colours in the page, its fonts served from the site itself for a year', async () => {
    const created = await call('POST', '/v1/sites', { name: 'Theme Bakery', theme: { preset: 'bakery', brand_color: '#ffd84d' } })
    const id = created.json['id']
    const page = await call('POST', `/v1/sites/${id}/pages`, { path: '/', title: 'Welcome' })
    await call('POST', `/v1/pages/${page.json['id']}/blocks`, {
      type: 'hero',
      content: { heading: 'Fresh bread', cta: { label: 'Visit', href: '/' } },
    })
    expect(await buildSite(t.app, id)).toMatchObject({ status: 'succeeded' })
    const host = 'theme-bakery.sites.test'
    const home = await hostGet(t.base, host, '/')
    expect(home.status).toBe(200)
    const html = home.body.toString()
    // The light yellow is darkened for the buttons (white text at 4.5:1 or more).
    const button = /--button:(#[0-9a-f]{6})/.exec(html)![1]!
    expect(button).not.toBe('#ffd84d')
    const preload = /<link rel="preload" href="([^"]+)" as="font"/.exec(html)![1]!
    expect(preload).toMatch(/^_wps\/assets\/fonts\/playfair-display-latin-700-normal\./)
    const font = await hostGet(t.base, host, `/${preload}`, { 'accept-encoding': 'br, gzip' })
    expect(font.status).toBe(200)
    expect(font.headers['content-type']).toBe('font/woff2')
    expect(font.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(font.headers['content-encoding']).toBeUndefined()
    expect(font.body.subarray(0, 4).toString('latin1')).toBe('wOF2')
    const again = await hostGet(t.base, host, `/${preload}`, { 'if-none-match': String(font.headers['etag']) })
    expect(again.status).toBe(304)
    // The preview under the service's own origin finds them too.
    const preview = await fetch(`${t.base}/s/${id}/${preload}`)
    expect(preview.status).toBe(200)
    expect(
      Buffer.from(await preview.arrayBuffer())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('wOF2')
    expect((await hostGet(t.base, host, '/_wps/assets/fonts/nothing.woff2')).status).toBe(404)
  })
})
