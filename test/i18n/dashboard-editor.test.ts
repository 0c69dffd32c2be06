import { describe, expect, it } from 'vitest'
import { insertBlock } from '../../src/domain/sites/blocks.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { formToken, post, signedIn } from '../dashboard/helpers.ts'
import { inEveryLanguage } from './dashboard-helpers.ts'

describe('the editor in German and French', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'editor-i18n@example.com')
  const site = await createAccountSite(app.db, owner.user.accountId, { name: 'Bäckerei', locales: ['de', 'en'], default_locale: 'de' })
  const page = await createPage(app.db, site, { title: 'Start', path: '/', locale: 'de' })
  const hours = await insertBlock(app.db, page.id, {
    type: 'opening_hours',
    content: { items: [{ day: 'monday', opens: '07:00', closes: '18:00' }] },
  })
  await insertBlock(app.db, page.id, { type: 'menu', content: { items: [{ name: 'Brot', price: 3.5 }] } })

  it('shows every screen of a site without an English sentence', async () => {
    for (const url of [
      `/app/sites/${site.id}`,
      `/app/sites/${site.id}/settings`,
      `/app/sites/${site.id}/theme`,
      `/app/sites/${site.id}/navigation`,
      `/app/sites/${site.id}/domains`,
      `/app/sites/${site.id}/redirects`,
      `/app/sites/${site.id}/pages/new`,
      `/app/sites/new`,
    ])
      await inEveryLanguage(app, owner.cookie, url)
    const { de, fr } = await inEveryLanguage(app, owner.cookie, `/app/sites/${site.id}/settings`)
    expect(de.$('h1').text()).toBe('Einstellungen von Bäckerei')
    expect(de.$('label[for=f-name]').text()).toBe('Name Ihrer Website')
    expect(fr.$('h1').text()).toBe('Réglages de Bäckerei')
    expect(fr.$('label[for=f-organization-telephone]').text()).toContain('Téléphone')
    expect(fr.$('label[for=f-organization-telephone] .optional').text()).toBe('(facultatif)')
  })

  it('shows a page, its blocks, their forms, the block delete question and the history in the page’s language', async () => {
    for (const url of [
      `/app/pages/${page.id}`,
      `/app/blocks/${hours.id}`,
      `/app/blocks/${hours.id}/delete`,
      `/app/pages/${page.id}/blocks/new?type=menu`,
      `/app/pages/${page.id}/blocks/new?type=hero`,
      `/app/pages/${page.id}/blocks/new?type=gallery`,
      `/app/pages/${page.id}/delete`,
      `/app/pages/${page.id}/history`,
    ])
      await inEveryLanguage(app, owner.cookie, url)
    const { de, fr } = await inEveryLanguage(app, owner.cookie, `/app/pages/${page.id}`)
    expect(de.$('#blocks-h').text()).toBe('Blöcke')
    expect(de.main).toContain('Mo') // the opening hours summarised with German day names
    expect(de.$('button:contains("Nach unten")').length).toBe(1)
    expect(fr.$('#details-h').text()).toBe('Détails de la page')
    const form = await inEveryLanguage(app, owner.cookie, `/app/blocks/${hours.id}`)
    expect(form.de.$('select option[value=monday]').text()).toBe('Montag')
    expect(form.fr.$('select option[value=monday]').text()).toBe('Lundi')
  })

  it('says what is wrong with a form in the page’s language, beside each field', async () => {
    const { cookie, token } = await formToken(app, owner.cookie, '/app/sites/new')
    for (const [lang, heading, message] of [
      ['de', 'Es gibt 2 Probleme', 'Bitte füllen Sie dieses Feld aus.'],
      ['fr', 'Il y a 2 problèmes', 'Remplissez ce champ.'],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: '/app/sites',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
        payload: new URLSearchParams({ _csrf: token, name: '', default_locale: 'en' }).toString(),
      })
      expect(res.statusCode).toBe(400)
      expect(res.body).toContain(heading)
      expect(res.body).toContain(message)
    }
    // A refusal of the plan, in the page's language, with the way up.
    const domain = await app.inject({
      method: 'POST',
      url: `/app/sites/${site.id}/domains`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'de' },
      payload: new URLSearchParams({ _csrf: token, hostname: 'www.baeckerei-beispiel.de' }).toString(),
    })
    expect(domain.statusCode).toBe(403)
    expect(domain.body).toContain('Ihr Tarif Free enthält das nicht; ab dem Tarif Lite ist es dabei.')
    // The plan's allowance worded by the page from the refusal's facts: one site on Free.
    const second = await app.inject({
      method: 'POST',
      url: '/app/sites',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr' },
      payload: new URLSearchParams({ _csrf: token, name: 'Deuxième', locales: 'fr', default_locale: 'fr' }).toString(),
    })
    expect(second.statusCode).toBe(403)
    expect(second.body).toContain('Votre offre Free permet 1 site et vous en avez 1. Une offre supérieure en permet davantage.')
    expect(domain.body).toContain('<a href="/app/billing">Ändern Sie Ihren Tarif</a>')
    // English stays the default.
    const english = await post(app, '/app/sites', cookie, { _csrf: token, name: '', default_locale: 'en' })
    expect(english.body).toContain('There are 2 problems')
  })
})

describe('the check for English left in a page', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'check-i18n@example.com')
  const { pageIn, leftInEnglish } = await import('./dashboard-helpers.ts')

  it('finds the English sentences of a page in the same page', async () => {
    const en = await pageIn(app, owner.cookie, '/app/sites/new', 'en')
    expect(leftInEnglish(en.$, en.$)).toContain(
      'Usually your business’s name. It also makes your site’s address; you can change both later.',
    )
  })
})

describe('an editor address of nothing in the account', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'nothing-i18n@example.com')

  it('answers 404 in the page’s language', async () => {
    const { pageIn } = await import('./dashboard-helpers.ts')
    const de = await pageIn(app, owner.cookie, '/app/sites/site_nothing', 'de', 404)
    expect(de.$('h1').text()).toBe('Nicht gefunden')
    expect(de.main).toContain('Diese Website gibt es in Ihrem Konto nicht')
    const en = await pageIn(app, owner.cookie, '/app/pages/page_nothing', 'en', 404)
    expect(en.main).toContain('There is no such page in your account')
  })
})
