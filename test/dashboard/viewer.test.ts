import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { addDomain } from '../../src/domain/sites/domains.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { makeTeam, type TeamMember } from '../teams/helpers.ts'

// A viewer reads every screen of the editor without being offered what their role does not allow:
// no forms that change anything, no buttons or links to them, the values shown read-only with a
// note saying whom to ask. An editor and an owner still get every form, and the server still
// refuses a viewer's post (the forms hidden are not the guard).
describe('the dashboard as a viewer sees it', async () => {
  const { app, base } = await startLiveApp()
  const team = await makeTeam(app, 'pro', 'viewonly')
  const site = await createAccountSite(app.db, team.accountId, { name: 'Harbour Bakery' })
  const home = await createPage(app.db, site, { path: '/', title: 'Home' })
  const text = await insertBlock(app.db, home.id, { type: 'text', content: { markdown: 'Fresh bread' } })
  const hero = await insertBlock(app.db, home.id, { type: 'hero', content: { heading: 'Welcome' } })
  const domain = await addDomain(app.db, site.id, 'www.harbour-bakery.example')
  const consent = { version: CONSENT_VERSION, digest: 'a'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
  await insertLead(app.db, app.keyring, { siteId: site.id, sessionId: null, email: 'ana@example.com', consent, source: 'assistant' })

  /** A GET in the member's browser, over HTTP. */
  async function open(member: TeamMember, path: string) {
    const res = await fetch(`${base}${path}`, { headers: { cookie: member.cookie }, redirect: 'manual' })
    const body = await res.text()
    return { status: res.status, location: res.headers.get('location'), body, $: cheerio.load(body) }
  }

  /** The forms of a page that change something: every post but the header's sign-out. */
  const changeForms = ($: cheerio.CheerioAPI) =>
    $('main form[method="post"]')
      .map((_i, el) => $(el).attr('action'))
      .get()

  const screens = [
    `/app/sites/${site.id}`,
    `/app/pages/${home.id}`,
    `/app/blocks/${text.id}`,
    `/app/blocks/${hero.id}`,
    `/app/pages/${home.id}/blocks/new?type=text`,
    `/app/sites/new`,
    `/app/sites/${site.id}/settings`,
    `/app/sites/${site.id}/domains`,
    `/app/sites/${site.id}/pages/new`,
    `/app/sites`,
    `/app/leads`,
  ]

  it('shows a viewer no form, button or link to change anything, and says why', async () => {
    for (const path of screens) {
      const page = await open(team.viewer, path)
      expect(page.status, path).toBe(200)
      expect(changeForms(page.$), path).toEqual([])
      expect(page.$('main button').filter((_i, el) => page.$(el).closest('form[method="get"]').length === 0).length, path).toBe(0)
      const links = page
        .$('main a')
        .map((_i, el) => page.$(el).attr('href'))
        .get()
      expect(
        links.filter((href) => /\/(new|delete)(\?|$)|\/pages\/new|\/blocks\/new/.test(href)),
        path,
      ).toEqual([])
      if (!['/app/sites', '/app/leads'].includes(path))
        expect(page.$('.view-only').text(), path).toContain('ask an owner to change your role to edit it')
    }
  })

  it('shows the viewer the saved values read-only', async () => {
    const settings = await open(team.viewer, `/app/sites/${site.id}/settings`)
    expect(settings.$('#f-name').val()).toBe('Harbour Bakery')
    expect(settings.$('#f-name').attr('readonly')).toBeDefined()
    const block = await open(team.viewer, `/app/blocks/${text.id}`)
    expect(block.$('#f-markdown').text()).toBe('Fresh bread')
    expect(block.$('#f-markdown').attr('readonly')).toBeDefined()
    const details = await open(team.viewer, `/app/pages/${home.id}`)
    expect(details.$('#f-title').val()).toBe('Home')
    expect(details.$('#f-title').attr('readonly')).toBeDefined()
  })

  it('sends a viewer who opens a delete page to the thing itself, read-only', async () => {
    for (const [path, to] of [
      [`/app/pages/${home.id}/delete`, `/app/pages/${home.id}`],
      [`/app/blocks/${text.id}/delete`, `/app/blocks/${text.id}`],
      [`/app/domains/${domain.id}/delete`, `/app/sites/${site.id}/domains`],
    ] as const) {
      const page = await open(team.viewer, path)
      expect(page.status, path).toBe(303)
      expect(page.location, path).toBe(to)
    }
  })

  it('still gives an editor and an owner every form', async () => {
    for (const member of [team.editor, team.owner]) {
      const siteHome = changeForms((await open(member, `/app/sites/${site.id}`)).$)
      expect(siteHome).toContain(`/app/sites/${site.id}/rebuild`)
      expect(changeForms((await open(member, `/app/pages/${home.id}`)).$)).toEqual(
        expect.arrayContaining([`/app/pages/${home.id}`, `/app/sites/${site.id}/rebuild`]),
      )
      expect(changeForms((await open(member, `/app/blocks/${text.id}`)).$)).toEqual([`/app/blocks/${text.id}`])
      expect(changeForms((await open(member, `/app/pages/${home.id}/blocks/new?type=text`)).$)).toEqual([`/app/pages/${home.id}/blocks`])
      expect(changeForms((await open(member, '/app/sites/new')).$)).toEqual(['/app/sites'])
      expect(changeForms((await open(member, `/app/sites/${site.id}/settings`)).$)).toEqual([`/app/sites/${site.id}/settings`])
      expect(changeForms((await open(member, `/app/sites/${site.id}/domains`)).$)).toEqual(
        expect.arrayContaining([`/app/domains/${domain.id}/verify`, `/app/sites/${site.id}/domains`]),
      )
      expect(changeForms((await open(member, `/app/pages/${home.id}/delete`)).$)).toEqual([`/app/pages/${home.id}/delete`])
      expect(changeForms((await open(member, '/app/leads')).$).some((action) => action.endsWith('/delete'))).toBe(true)
      expect((await open(member, '/app/sites')).$('main a[href="/app/sites/new"]').length).toBe(1)
      const settings = await open(member, `/app/sites/${site.id}/settings`)
      expect(settings.$('#f-name').attr('readonly')).toBeUndefined()
      expect(settings.$('.view-only').length).toBe(0)
    }
  })

  it('words a refusal for the role with the right article and without the account’s id', async () => {
    const editor = await open(team.editor, '/app/members')
    expect(editor.status).toBe(403)
    expect(editor.$('main .error').text()).toBe(
      'You are an editor of this account; only an owner can do this. Ask an owner if you need your role changed.',
    )
    const viewer = await open(team.viewer, '/app/audit-log')
    expect(viewer.$('main .error').text()).toBe(
      'You are a viewer of this account; only an owner can do this. Ask an owner if you need your role changed.',
    )
    for (const page of [editor, viewer]) expect(page.body).not.toMatch(/acct_|is a editor|a owner|an viewer/)
  })

  it('still refuses a viewer’s post with 403', async () => {
    // The CSRF token of the header's sign-out form, which every page carries.
    const res = await fetch(`${base}/app/sites`, { headers: { cookie: team.viewer.cookie }, redirect: 'manual' })
    const csrfCookie = res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    const token = cheerio
      .load(await res.text())('input[name="_csrf"]')
      .first()
      .attr('value')!
    for (const [path, form] of [
      [`/app/sites/${site.id}/rebuild`, {}],
      [`/app/sites/${site.id}/settings`, { name: 'Changed', subdomain: site.slug, locales: 'en', default_locale: 'en' }],
      [`/app/blocks/${text.id}`, { markdown: 'Changed', _do: 'save' }],
    ] as const) {
      const post = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { cookie: `${team.viewer.cookie}; ${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, ...form }),
        redirect: 'manual',
      })
      expect(post.status, path).toBe(403)
      expect(
        cheerio
          .load(await post.text())('main .error')
          .text(),
        path,
      ).toBe('You are a viewer of this account; only an editor or an owner can do this. Ask an owner if you need your role changed.')
    }
    expect((await app.db.selectFrom('sites').select('name').where('id', '=', site.id).executeTakeFirstOrThrow()).name).toBe(
      'Harbour Bakery',
    )
  })
})
