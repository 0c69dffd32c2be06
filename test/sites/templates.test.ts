import { GraphQLClient } from 'graphql-request'
import { beforeAll, describe, expect, it } from 'vitest'
import { startLiveApp, type LiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { makeAccount, oauthToken, type TestAccount } from '../rest/helpers.ts'
import { buildSite, SETUP_TIMEOUT_MS } from './helpers.ts'
import { api, BAKERY, hostGet } from './template-helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** The main menu's links of a page: [label, href, aria-current?] in order, sub-items after their parent with "  " before the label. */
function menuOf(html: string): string[] {
  const nav = /<nav aria-label="[^"]+"><ul>(.*?)<\/ul><\/nav>/.exec(html)![1]!
  return [...nav.matchAll(/<(li|ul)[^>]*>|<a href="([^"]+)"([^>]*)>([^<]+)<\/a>/g)]
    .filter((m) => m[2] !== undefined)
    .map((m) => {
      const depth = nav.slice(0, m.index).split('<ul>').length - nav.slice(0, m.index).split('</ul>').length
      return `${depth > 0 ? '  ' : ''}${m[4]} ${m[2]}${m[3]!.includes('aria-current') ? ' (current)' : ''}`
    })
}

describe('templates and the first draft, the menu, on /v1, GraphQL and MCP', () => {
  let t: LiveApp
  let owner: TestAccount
  let call: ReturnType<typeof api>

  beforeAll(async () => {
    t = await startLiveApp({ env: { SITES_DOMAIN: 'sites.test' } })
    owner = await makeAccount(t.app, 'pro')
    call = api(t.base, owner)
  }, SETUP_TIMEOUT_MS)

  it('lists eight templates in the language asked, with their pages', async () => {
    const en = await call('GET', '/v1/templates')
    expect(en.status).toBe(200)
    expect(en.json['data']).toHaveLength(8)
    expect(en.json['data'].map((t: Json) => t.business_type)).toEqual([
      'bakery',
      'restaurant',
      'salon',
      'trades',
      'consultant',
      'shop',
      'health',
      'club',
    ])
    expect(en.json['data'][0]).toMatchObject({ id: 'bakery', preset: 'bakery', locales: ['de', 'en', 'fr'] })
    const de = await call('GET', '/v1/templates?locale=de')
    expect(de.json['data'][0]['pages'].map((p: Json) => p.path)).toEqual(['/', '/angebot', '/ueber-uns', '/kontakt', '/impressum'])
    const fr = await call('GET', '/v1/templates?locale=fr')
    expect(fr.json['data'][1]['pages'].map((p: Json) => p.path)).toEqual(['/', '/carte', '/a-propos', '/contact', '/mentions-legales'])
    const bad = await call('GET', '/v1/templates?locale=es')
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toContain('application/problem+json')
  })

  it('makes a French bakery draft from the facts, publishes it with the template’s look and its hours', async () => {
    const created = await call('POST', '/v1/sites', { name: 'Martin', default_locale: 'fr', template: 'bakery', business: BAKERY })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    expect(created.json['theme']).toMatchObject({ preset: 'bakery' })
    expect(created.json['navigation']).toEqual([{ page: '/mentions-legales', hidden: true }])
    const id = created.json['id']
    const pages = await call('GET', `/v1/sites/${id}/pages`)
    expect(pages.json['data'].map((p: Json) => [p.path, p.title]).sort()).toEqual(
      [
        ['/', 'Boulangerie Martin'],
        ['/a-propos', 'À propos'],
        ['/carte', 'Carte'],
        ['/contact', 'Contact'],
        ['/mentions-legales', 'Mentions légales'],
      ].sort(),
    )
    expect(await buildSite(t.app, id)).toMatchObject({ status: 'succeeded' })
    const home = await hostGet(t.base, 'martin.sites.test', '/')
    expect(home.status).toBe(200)
    expect(home.body).toContain('Cuit chaque matin à Lyon')
    expect(home.body).toContain('+33 4 78 00 00 00')
    expect(home.body).toContain('"openingHoursSpecification"')
    // The illustration is served from the site itself, sized (no layout shift).
    const img = /<img src="([^"]+)" width="1200" height="675" alt=""/.exec(home.body)
    expect(img?.[1]).toMatch(/^_wps\/assets\/illustrations\/bakery\.[A-Za-z0-9]+\.svg$/)
    expect((await hostGet(t.base, 'martin.sites.test', `/${img![1]}`)).status).toBe(200)
    // The legal page is out of the menu, which lists the rest in the default order.
    expect(menuOf(home.body)).toEqual(['Accueil ./ (current)', 'À propos a-propos', 'Carte carte', 'Contact contact'])
    const legal = await hostGet(t.base, 'martin.sites.test', '/mentions-legales')
    expect(legal.status).toBe(200)
    expect(legal.body).toContain('12 rue Mercière, 69002 Lyon')
    const contact = await hostGet(t.base, 'martin.sites.test', '/contact')
    expect(contact.body).toContain('bonjour@martin.example')
    expect(contact.body).toContain('<form')
  })

  it('keeps the owner’s menu: order, a hidden page, a sub-page and a link elsewhere', async () => {
    const created = await call('POST', '/v1/sites', { name: 'Menu Bakery', template: 'bakery', business: { type: 'bakery' } })
    const id = created.json['id']
    const navigation = [
      {
        page: '/menu',
        label: 'Our bread',
        children: [{ page: '/about-us' }, { label: 'Order online', url: 'https://shop.example/order' }],
      },
      { page: '/' },
      { page: '/contact', hidden: true },
    ]
    const set = await call('PATCH', `/v1/sites/${id}`, { navigation })
    expect(set.status, JSON.stringify(set.json)).toBe(200)
    expect(set.json['navigation']).toEqual(navigation)
    expect(await buildSite(t.app, id)).toMatchObject({ status: 'succeeded' })
    const about = await hostGet(t.base, 'menu-bakery.sites.test', '/about-us')
    expect(menuOf(about.body)).toEqual([
      'Our bread menu',
      '  About us about-us (current)',
      '  Order online https://shop.example/order',
      'Home ./',
      'Legal notice legal-notice',
    ])
    expect(about.body).toMatch(/<li class="here"><a href="menu">Our bread<\/a><ul>/)
    // Back to the standard order.
    const reset = await call('PATCH', `/v1/sites/${id}`, { navigation: [] })
    expect(reset.json['navigation']).toBeNull()

    for (const [bad, field] of [
      [[{ page: '/', url: 'https://x.example', label: 'x' }], 'navigation.0'],
      [[{ url: 'https://x.example' }], 'navigation.0.label'],
      [[{ url: 'javascript:alert(1)', label: 'x' }], 'navigation'],
      [[{ page: '/' }, { page: '/' }], 'navigation.1.page'],
      [[{ page: 'no-slash' }], 'page'],
      [[{ page: '/', children: [{ page: '/a', children: [] }] }], 'children'],
    ] as const) {
      const refused = await call('PATCH', `/v1/sites/${id}`, { navigation: bad })
      expect(refused.status, JSON.stringify(bad)).toBe(400)
      expect(refused.headers.get('content-type')).toContain('application/problem+json')
      expect(refused.json['detail'], JSON.stringify(bad)).toContain(field)
    }
    const stranger = await makeAccount(t.app, 'pro')
    expect((await api(t.base, stranger)('PATCH', `/v1/sites/${id}`, { navigation })).status).toBe(404)
  })

  it('refuses an unknown template and facts not in the expected form, nothing stored', async () => {
    const before = (await call('GET', '/v1/sites')).json['meta']['total']
    for (const [body, field] of [
      [{ name: 'X', template: 'zoo' }, 'template'],
      [{ name: 'X', business: { type: 'bakery', phone: 'call me' } }, 'phone'],
      [{ name: 'X', business: { type: 'bakery', opening_hours: { items: [{ day: 'moonday', opens: '07:00', closes: '08:00' }] } } }, 'day'],
      [{ name: 'X', business: { name: 'No type' } }, 'type'],
    ] as const) {
      const refused = await call('POST', '/v1/sites', body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.json['detail']).toContain(field)
    }
    expect((await call('GET', '/v1/sites')).json['meta']['total']).toBe(before)
  })

  it('makes paths from titles, transliterated and unique', async () => {
    const site = await call('POST', '/v1/sites', { name: 'Pfad', default_locale: 'de', locales: ['de', 'fr'] })
    const id = site.json['id']
    const one = await call('POST', `/v1/sites/${id}/pages`, { title: 'Über uns & Öffnungszeiten' })
    expect(one.status).toBe(201)
    expect(one.json['path']).toBe('/ueber-uns-oeffnungszeiten')
    const two = await call('POST', `/v1/sites/${id}/pages`, { title: 'Über uns – Öffnungszeiten' })
    expect(two.json['path']).toBe('/ueber-uns-oeffnungszeiten-2')
    const fr = await call('POST', `/v1/sites/${id}/pages`, { title: 'Œuvres à découvrir', locale: 'fr' })
    expect(fr.json['path']).toBe('/oeuvres-a-decouvrir')
    const symbols = await call('POST', `/v1/sites/${id}/pages`, { title: '★★★' })
    expect(symbols.json['path']).toBe('/page')
  })

  it('does the same over GraphQL and MCP', async () => {
    const gql = new GraphQLClient(`${t.base}/v1/graphql`, { headers: owner.headers, errorPolicy: 'all' })
    const listed = await gql.rawRequest<Json>('{ templates(locale: de) { id businessType preset pages { path title } } }')
    expect(listed.errors).toBeUndefined()
    expect(listed.data['templates']).toHaveLength(8)
    expect(listed.data['templates'][2]).toMatchObject({ id: 'salon', businessType: 'salon', preset: 'salon' })
    const created = await gql.rawRequest<Json>(
      'mutation($input: CreateSiteInput!) { createSite(input: $input) { id theme { preset } navigation { page hidden } pages { edges { node { path title } } } } }',
      {
        input: {
          name: 'Friseur Anna',
          defaultLocale: 'de',
          template: 'salon',
          business: {
            type: 'salon',
            name: 'Salon Anna',
            city: 'Köln',
            postalCode: '50667',
            address: 'Hohe Str. 1',
            phone: '+49 221 123456',
            openingHours: { items: [{ day: 'tuesday', opens: '09:00', closes: '18:00' }] },
          },
        },
      },
    )
    expect(created.errors).toBeUndefined()
    const site = created.data['createSite']
    // The typed opening hours reach the draft's opening_hours block as given.
    const hours = await t.app.db
      .selectFrom('blocks')
      .innerJoin('pages', 'pages.id', 'blocks.page_id')
      .select('blocks.content')
      .where('pages.site_id', '=', site.id)
      .where('blocks.type', '=', 'opening_hours')
      .executeTakeFirstOrThrow()
    expect((hours.content as { items: unknown[] }).items).toEqual([{ day: 'tuesday', opens: '09:00', closes: '18:00' }])
    // A day that is not one is refused by the schema before anything runs (400 BAD_USER_INPUT).
    await expect(
      gql.rawRequest<Json>('mutation($input: CreateSiteInput!) { createSite(input: $input) { id } }', {
        input: { name: 'Y', business: { type: 'salon', openingHours: { items: [{ day: 'someday', opens: '09:00', closes: '18:00' }] } } },
      }),
    ).rejects.toThrow(/"someday" does not exist in "Weekday" enum/)
    expect(site.theme.preset).toBe('salon')
    expect(site.navigation).toEqual([{ page: '/impressum', hidden: true }])
    expect(site.pages.edges.map((e: Json) => e.node.path).sort()).toEqual(['/', '/impressum', '/kontakt', '/leistungen', '/ueber-uns'])
    const moved = await gql.rawRequest<Json>(
      'mutation($input: UpdateSiteInput!) { updateSite(input: $input) { navigation { page label url children { page } } } }',
      {
        input: {
          id: site.id,
          navigation: [
            { page: '/kontakt', children: [{ page: '/ueber-uns' }] },
            { label: 'Termin', url: 'https://book.example' },
          ],
        },
      },
    )
    expect(moved.errors).toBeUndefined()
    expect(moved.data['updateSite']['navigation'][1]).toEqual({ page: null, label: 'Termin', url: 'https://book.example', children: null })
    const bad = await gql.rawRequest<Json>('mutation($input: CreateSiteInput!) { createSite(input: $input) { id } }', {
      input: { name: 'X', business: { type: 'zoo' } },
    })
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')

    const { token } = await oauthToken(t.app, owner.accountId, ['mcp:read', 'mcp:tools'], `${t.base}/mcp`)
    const mcp = await connect(t.base, token)
    const templates = await mcp.callTool({ name: 'list_templates', arguments: { locale: 'fr' } })
    expect(templates.isError, textOf(templates)).toBeFalsy()
    expect((templates.structuredContent as Json)['data'][7]['name']).toBe('Club ou association')
    const made = await mcp.callTool({
      name: 'create_site',
      arguments: { name: 'Elektro Meier', template: 'trades', business: { type: 'trades', city: 'Bonn' }, locales: ['en', 'de'] },
    })
    expect(made.isError, textOf(made)).toBeFalsy()
    const madeId = (made.structuredContent as Json)['id']
    const pages = await call('GET', `/v1/sites/${madeId}/pages?per_page=50`)
    expect(pages.json['meta']['total']).toBe(10)
    const nav = await mcp.callTool({
      name: 'update_site',
      arguments: { site_id: madeId, navigation: [{ page: '/services', hidden: true }] },
    })
    expect((nav.structuredContent as Json)['navigation']).toEqual([{ page: '/services', hidden: true }])
    const wrong = await mcp.callTool({ name: 'update_site', arguments: { site_id: madeId, navigation: [{ url: 'https://x.example' }] } })
    expect(wrong.isError).toBe(true)
    await mcp.close()
  })
})
