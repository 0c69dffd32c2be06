import { describe, expect, it } from 'vitest'
import { navigationOf } from '../../src/domain/sites/navigation.ts'
import { createAccountSite, prepareDraft } from '../../src/domain/sites/sites.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'

// The site's menu in a browser without JavaScript, over HTTP: order, a hidden page, a sub-page
// and a link elsewhere saved through the form; wrong fields named beside them, what was typed kept.
describe('the menu of a site in the dashboard', async () => {
  const { app, base } = await startLiveApp()
  const browser = new Browser(base)
  await browser.signIn(app, 'menu-baker@example.com', await browser.get('/signin'))
  const { account_id: accountId } = await app.db
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select('account_members.account_id')
    .orderBy('account_members.seq', 'desc')
    .executeTakeFirstOrThrow()
  const input = { name: 'Harbour Bakery', template: 'bakery' as const }
  const site = await createAccountSite(app.db, accountId, input, await prepareDraft(input))
  const url = `/app/sites/${site.id}/navigation`
  const saved = async () =>
    navigationOf((await app.db.selectFrom('sites').select('settings').where('id', '=', site.id).executeTakeFirstOrThrow()).settings)

  it('lists the pages in menu order, the legal page unticked, and saves a new order with a sub-page and a link', async () => {
    const page = await browser.get(url)
    expect(page.status).toBe(200)
    // Pages home first, then by path: /, /about-us, /contact, /legal-notice, /menu.
    expect(
      page
        .$('legend code')
        .map((_, el) => page.$(el).text())
        .get(),
    ).toEqual(['/', '/about-us', '/contact', '/legal-notice', '/menu'])
    expect(page.$('#f-p3-shown').attr('checked')).toBeUndefined()
    expect(page.$('#f-p0-shown').attr('checked')).toBe('checked')
    const done = await browser.submit(
      page,
      {
        'p4.order': '1',
        'p1.under': '/menu',
        'p2.shown': '',
        'l0.label': 'Order online',
        'l0.url': 'https://shop.example/order',
        'l0.order': '2',
        'l0.under': '/menu',
      },
      { action: url, button: ['_do', 'save'] },
    )
    expect(done.status, done.html).toBe(303)
    const menu = await saved()
    expect(menu?.[0]).toEqual({
      page: '/menu',
      // Under the menu page by position: the link (2) before the about page (20).
      children: [{ label: 'Order online', url: 'https://shop.example/order' }, { page: '/about-us' }],
    })
    expect(menu?.find((i) => i.page === '/contact')).toEqual({ page: '/contact', hidden: true })
    const again = await browser.get(url)
    expect(again.$('#f-l0-url').attr('value')).toBe('https://shop.example/order')
    expect(again.$('#f-p1-under option[selected]').attr('value')).toBe('/menu')
  })

  it('names wrong fields beside them and keeps what was typed', async () => {
    const before = await saved()
    const refused = await browser.submit(
      await browser.get(url),
      { 'p0.order': 'first', 'l1.label': 'Shop', 'l1.url': 'javascript:alert(1)', 'p4.under': '/about-us' },
      { action: url, button: ['_do', 'save'] },
    )
    expect(refused.status).toBe(400)
    expect(refused.$('#f-p0-order').attr('aria-invalid')).toBe('true')
    expect(refused.$('#f-p0-order').attr('value')).toBe('first')
    expect(refused.$('#f-l1-url-error').text()).toContain('https://')
    expect(refused.$('#f-p4-under-error').text()).toContain('top of the menu')
    // The about page sits under /menu, which the form puts under the about page: both are named.
    expect(refused.$('#f-p1-under-error').text()).toContain('top of the menu')
    expect(await saved()).toEqual(before)
  })

  it('goes back to the standard order', async () => {
    const done = await browser.submit(await browser.get(url), {}, { action: url, button: ['_do', 'reset'] })
    expect(done.status).toBe(303)
    expect(await saved()).toBeNull()
  })
})
