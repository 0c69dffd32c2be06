import { describe, expect, it } from 'vitest'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { themeView } from '../../src/domain/sites/themes.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'

// The look of a site in a browser without JavaScript, over HTTP: a preview before saving, the
// contrast note for a light colour, each wrong field named, and the draft preview sandboxed.
describe('the look of a site in the dashboard', async () => {
  const { app, base } = await startLiveApp()
  const browser = new Browser(base)
  await browser.signIn(app, 'look-baker@example.com', await browser.get('/signin'))
  const { account_id: accountId } = await app.db
    .selectFrom('users')
    .innerJoin('account_members', 'account_members.user_id', 'users.id')
    .select('account_members.account_id')
    .orderBy('account_members.seq', 'desc')
    .executeTakeFirstOrThrow()
  const site = await createAccountSite(app.db, accountId, { name: 'Harbour Bakery' })
  const url = `/app/sites/${site.id}/theme`
  const saved = async () =>
    themeView((await app.db.selectFrom('sites').select('settings').where('id', '=', site.id).executeTakeFirstOrThrow()).settings)

  it('previews a style before saving it, and says when a light colour is darkened', async () => {
    const page = await browser.get(url)
    expect(page.status).toBe(200)
    expect(page.$('#f-preset option[selected]').attr('value')).toBe('fresh')
    // A new style brings its own fonts and corners; the colour typed with it is kept.
    const preview = await browser.submit(page, { preset: 'bakery', brand_color: '#FFD84D' }, { action: url, button: ['_do', 'preview'] })
    expect(preview.status).toBe(200)
    expect(preview.$('#f-font_pair option[selected]').attr('value')).toBe('classic')
    expect(preview.$('#f-brand_color').attr('value')).toBe('#FFD84D')
    expect(preview.$('#contrast-note').text()).toMatch(/too light/)
    const frame = preview.$('iframe').attr('src')!
    expect(frame).toContain(`/s/${site.id}/_draft/?`)
    expect(frame).toContain('preset=bakery')
    expect((await saved()).preset).toBe('fresh')

    // The preview itself: the draft in that look, sandboxed (an opaque origin, no script).
    const shown = await browser.get(frame.replace(base, ''))
    expect(shown.status).toBe(200)
    expect(shown.headers.get('content-security-policy')).toMatch(/^sandbox;/)
    expect(shown.html).toContain('font-family:"Playfair Display"')
    expect(shown.html).toMatch(/--button:#[0-9a-f]{6}/)
    expect(shown.html).not.toContain('--button:#ffd84d')
    expect(shown.html).toContain('Harbour Bakery')
    const font = /<link rel="preload" href="([^"]+)"/.exec(shown.html)![1]!
    const fontAnswer = await fetch(`${base}/s/${site.id}/_draft/${font}`)
    expect(fontAnswer.headers.get('access-control-allow-origin')).toBe('*')
    expect(fontAnswer.headers.get('content-type')).toBe('font/woff2')

    const done = await browser.submit(preview, {}, { action: url, button: ['_do', 'save'] })
    expect(done.status, done.html).toBe(303)
    expect(await saved()).toEqual({ preset: 'bakery', brand_color: '#ffd84d', font_pair: 'classic', corners: 'round' })
  })

  it('names a wrong colour beside its field and keeps what was typed', async () => {
    const refused = await browser.submit(await browser.get(url), { brand_color: 'orange' }, { action: url, button: ['_do', 'save'] })
    expect(refused.status).toBe(400)
    expect(refused.$('#f-brand_color').attr('aria-invalid')).toBe('true')
    expect(refused.$('#f-brand_color-error').text()).toContain('six digits')
    expect(refused.$('#f-brand_color').attr('value')).toBe('orange')
    expect((await saved()).brand_color).toBe('#ffd84d')
  })

  it('shows the draft only to the people of the site’s account', async () => {
    const stranger = await fetch(`${base}/s/${site.id}/_draft/`, { redirect: 'manual' })
    expect(stranger.status).toBe(303)
    const other = new Browser(base)
    await other.signIn(app, 'look-other@example.com', await other.get('/signin'))
    expect((await other.get(`/s/${site.id}/_draft/`)).status).toBe(404)
    expect((await other.get(url)).status).toBe(404)
  })
})
