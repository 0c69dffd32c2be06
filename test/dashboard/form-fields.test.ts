import { describe, expect, it } from 'vitest'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'

// What the editor's forms announce, in a browser without JavaScript over HTTP: only a field that
// must be filled in is required, and a refused form lists its problems in the form's own order.
describe('the editor’s forms announce what they need', async () => {
  const { app, base } = await startLiveApp()
  const browser = new Browser(base)
  await browser.signIn(app, 'fields-baker@example.com', await browser.get('/signin'))
  const { account_id: accountId } = await app.db
    .selectFrom('account_members')
    .select('account_id')
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow()
  const site = await createAccountSite(app.db, accountId, { name: 'Harbour Bakery' })
  const home = await createPage(app.db, site, { path: '/', title: 'Home' })

  it('marks only the heading of a Big heading block as required, not its optional button and picture', async () => {
    const page = await browser.get(`/app/pages/${home.id}/blocks/new?type=hero`)
    expect(page.status).toBe(200)
    expect(page.$('#f-heading').attr('aria-required')).toBe('true')
    for (const id of ['f-subheading', 'f-cta-label', 'f-cta-href', 'f-image-src', 'f-image-alt']) {
      const control = page.$(`#${id}`)
      expect(control.length, id).toBe(1)
      expect(control.attr('aria-required'), id).toBeUndefined()
      expect(control.attr('required'), id).toBeUndefined()
    }
    // The group says it is optional once, on its legend.
    expect(
      page
        .$('legend')
        .map((_i, el) => page.$(el).text())
        .get(),
    ).toEqual(expect.arrayContaining(['Button (optional)', 'Picture (optional)']))
    expect(page.$('label[for="f-cta-label"]').text()).toBe('Button text')
  })

  it('lists a refused page’s problems in the order of its fields', async () => {
    const url = `/app/pages/${home.id}`
    const refused = await browser.submit(await browser.get(url), { title: '', path: '/Bad Path!' }, { action: url })
    expect(refused.status).toBe(400)
    const listed = refused
      .$('#problems li a')
      .map((_i, el) => refused.$(el).attr('href'))
      .get()
    expect(listed).toEqual(['#f-title', '#f-path'])
    const inForm = refused
      .$(`form[action="${url}"] [aria-invalid="true"]`)
      .map((_i, el) => `#${refused.$(el).attr('id')}`)
      .get()
    expect(listed).toEqual(inForm)
  })
})
