import { GraphQLClient } from 'graphql-request'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'
import { connect, textOf } from '../mcp/helpers.ts'
import { oauthToken } from '../rest/helpers.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

// The opening hours, menu and contact details blocks on every interface: their forms in the
// editor without JavaScript, /v1, GraphQL and MCP, each refusing what its schema refuses.
describe('opening hours, menu and contact details on every interface', async () => {
  const { app, base } = await startLiveApp()
  const browser = new Browser(base)
  await browser.signIn(app, 'blocks-baker@example.com', await browser.get('/signin'))
  const { account_id: accountId, id: userId } = await app.db
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select(['account_members.account_id', 'users.id'])
    .orderBy('account_members.seq', 'desc')
    .executeTakeFirstOrThrow()
  await updateAccount(app.db, accountId, { plan: 'pro' })
  const site = await createAccountSite(app.db, accountId, { name: 'Bäckerei Korn', default_locale: 'de', locales: ['de'] })
  const page = await createPage(app.db, site, { path: '/', locale: 'de', title: 'Start', description: 'Brot und Kuchen' })
  const { secret } = await createApiToken(app.db, { accountId, name: 'test', scopes: ['read:sites', 'write:pages'] })
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }
  const contents = async () =>
    (await app.db.selectFrom('blocks').select(['type', 'content']).where('page_id', '=', page.id).orderBy('position').execute()).map(
      (b) => [b.type, b.content],
    )

  it('adds opening hours in the editor: a day chosen from the week, special days typed one a line', async () => {
    const url = `/app/pages/${page.id}/blocks/new?type=opening_hours`
    const form = await browser.get(url)
    expect(form.status).toBe(200)
    expect(form.$('#f-items-0-day option').length).toBe(7)
    const action = `/app/pages/${page.id}/blocks`
    const twoRows = await browser.submit(
      form,
      { 'items.0.day': 'monday', 'items.0.opens': '07:00', 'items.0.closes': '18:00' },
      { action, button: ['_do', 'add'] },
    )
    const refused = await browser.submit(
      twoRows,
      { 'items.1.day': 'saturday', 'items.1.opens': '7 Uhr', 'items.1.closes': '12:00', exceptions: '2026-12-24 geschlossen Heiligabend' },
      { action, button: ['_do', 'save'] },
    )
    expect(refused.status).toBe(400)
    expect(refused.$('#f-items-1-opens-error').text()).toContain('07:30')
    expect(refused.$('#f-items-1-opens').attr('value')).toBe('7 Uhr')
    expect(refused.$('#f-exceptions').text()).toBe('2026-12-24 geschlossen Heiligabend')
    // The test browser sends inputs and selects of the page; the text area's words are given again.
    const saved = await browser.submit(
      refused,
      { 'items.1.opens': '07:00', exceptions: refused.$('#f-exceptions').text() },
      { action, button: ['_do', 'save'] },
    )
    expect(saved.status, saved.html).toBe(303)
    expect((await contents()).at(-1)).toEqual([
      'opening_hours',
      {
        items: [
          { day: 'monday', opens: '07:00', closes: '18:00' },
          { day: 'saturday', opens: '07:00', closes: '12:00' },
        ],
        exceptions: [{ date: '2026-12-24', closed: true, note: 'Heiligabend' }],
      },
    ])
    // Opened again, the special days read as they were typed.
    const block = await app.db.selectFrom('blocks').select('id').where('type', '=', 'opening_hours').executeTakeFirstOrThrow()
    const edit = await browser.get(`/app/blocks/${block.id}`)
    expect(edit.$('#f-exceptions').text()).toBe('2026-12-24 closed Heiligabend')
  })

  it('adds a menu with a price typed with a comma, and contact details, in the editor', async () => {
    const action = `/app/pages/${page.id}/blocks`
    const menu = await browser.submit(
      await browser.get(`/app/pages/${page.id}/blocks/new?type=menu`),
      { 'items.0.section': 'Brot', 'items.0.name': 'Roggenbrot', 'items.0.price': '4,50' },
      { action, button: ['_do', 'save'] },
    )
    expect(menu.status, menu.html).toBe(303)
    expect((await contents()).at(-1)).toEqual(['menu', { items: [{ section: 'Brot', name: 'Roggenbrot', price: 4.5 }] }])
    const wrongPrice = await browser.submit(
      await browser.get(`/app/pages/${page.id}/blocks/new?type=menu`),
      { 'items.0.name': 'Brötchen', 'items.0.price': 'free' },
      { action, button: ['_do', 'save'] },
    )
    expect(wrongPrice.status).toBe(400)
    expect(wrongPrice.$('#f-items-0-price-error').text()).toContain('3.50')
    const details = await browser.submit(
      await browser.get(`/app/pages/${page.id}/blocks/new?type=contact_details`),
      { 'address.street': 'Marktstraße 12', 'address.locality': 'Hamburg', phone: '+49 40 123456' },
      { action, button: ['_do', 'save'] },
    )
    expect(details.status, details.html).toBe(303)
    expect((await contents()).at(-1)).toEqual([
      'contact_details',
      { address: { street: 'Marktstraße 12', locality: 'Hamburg' }, phone: '+49 40 123456' },
    ])
    // The draft shows them as the published page will.
    const draft = await browser.get(`/s/${site.id}/_draft/`)
    expect(draft.html).toContain('Samstag')
    expect(draft.html).toContain('4,50\u00a0€')
    expect(draft.html).toContain('openstreetmap.org/search')
  })

  it('takes them on /v1, GraphQL and MCP, refusing bad content naming the field', async () => {
    const add = (content: unknown, type = 'menu') =>
      fetch(`${base}/v1/pages/${page.id}/blocks`, { method: 'POST', headers, body: JSON.stringify({ type, content }) })
    const ok = await add({ currency: 'EUR', items: [{ name: 'Brezel', price: 1.2 }] })
    expect(ok.status).toBe(201)
    expect(((await ok.json()) as Json)['content']).toEqual({ currency: 'EUR', items: [{ name: 'Brezel', price: 1.2 }] })
    const bad = await add({ items: [{ name: 'Brezel', price: '1,20' }] })
    expect(bad.status).toBe(400)
    const problem = (await bad.json()) as Json
    expect(problem['code']).toBe('invalid_block_content')
    expect(problem['detail']).toContain('price')
    const badHours = await add({ items: [{ day: 'funday', opens: '07:00', closes: '12:00' }] }, 'opening_hours')
    expect(badHours.status).toBe(400)

    const gql = new GraphQLClient(`${base}/v1/graphql`, { headers: { authorization: headers.authorization }, errorPolicy: 'all' })
    const added = await gql.rawRequest<Json>('mutation($input: AddBlockInput!) { addBlock(input: $input) { type content } }', {
      input: { pageId: page.id, type: 'contact_details', content: { email: 'hallo@korn.example' } },
    })
    expect(added.errors).toBeUndefined()
    expect(added.data['addBlock']).toEqual({ type: 'contact_details', content: { email: 'hallo@korn.example' } })
    const refused = await gql.rawRequest<Json>('mutation($input: AddBlockInput!) { addBlock(input: $input) { id } }', {
      input: { pageId: page.id, type: 'contact_details', content: { email: 'not an address' } },
    })
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT')

    const { token } = await oauthToken(app, accountId, ['mcp:read', 'mcp:tools'], `${base}/mcp`, 600, userId)
    const mcp = await connect(base, token)
    const viaMcp = await mcp.callTool({
      name: 'add_block',
      arguments: { page_id: page.id, type: 'opening_hours', content: { items: [{ day: 'sunday', opens: '08:00', closes: '11:00' }] } },
    })
    expect(viaMcp.isError, textOf(viaMcp)).toBeFalsy()
    expect((viaMcp.structuredContent as Json)['type']).toBe('opening_hours')
    const wrong = await mcp.callTool({
      name: 'add_block',
      arguments: { page_id: page.id, type: 'opening_hours', content: { items: [{ day: 'sunday', opens: '8', closes: '11:00' }] } },
    })
    expect(wrong.isError).toBe(true)
    await mcp.close()
  })
})
