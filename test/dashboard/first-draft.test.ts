import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { dashboardBrowser, post, signedIn } from './helpers.ts'

// "Tell us about your business", the dashboard's first screen, over plain form posts: a bakery
// in Lyon described in French becomes a draft of five French pages carrying its facts; wrong
// facts are refused beside their fields with everything typed kept; no type, an empty site.
describe('the first draft from the dashboard’s first screen', async () => {
  const { app } = await buildTestApp()
  const owner = await signedIn(app, 'boulangere@example.fr')
  const { cookie, form } = await dashboardBrowser(app, owner, '/app/start')
  const sitesOf = () => app.db.selectFrom('sites').select(['id', 'name']).where('account_id', '=', owner.user.accountId).execute()
  const asked = (body: Record<string, string | string[]>) =>
    app.inject({
      method: 'POST',
      url: '/app/sites',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr' },
      payload: new URLSearchParams(
        Object.entries(body).flatMap(([k, v]) => [v].flat().map((one): [string, string] => [k, one])),
      ).toString(),
    })
  const bakery = {
    name: 'Boulangerie Rivière',
    locales: 'fr',
    default_locale: 'fr',
    business_type: 'bakery',
    city: 'Lyon',
    description: 'Pain au levain et viennoiseries pur beurre, cuits chaque matin.',
    phone: '+33 4 78 12 34 56',
    email: 'bonjour@boulangerie-riviere.fr',
    address: '12 rue de la Charité',
    postal_code: '69002',
    opens_tuesday: '07:00',
    closes_tuesday: '19:30',
    opens_saturday: '07:30',
    closes_saturday: '13:00',
  }

  it('asks about the business in the person’s language, every fact optional but the name and languages', async () => {
    const res = await app.inject({ method: 'GET', url: '/app/start', headers: { cookie, 'accept-language': 'fr' } })
    const $ = cheerio.load(res.body)
    expect($('h1').text()).toBe('Parlez-nous de votre activité')
    expect($('#f-business_type option').length).toBe(9)
    expect($('#f-business_type option[value=bakery]').text()).toMatch(/Boulangerie/)
    expect($('label[for=f-opens_monday]').text()).toBe('Lundi : ouverture')
    expect($('#f-phone').attr('type')).toBe('tel')
    expect($('#f-opens_monday').attr('type')).toBe('time')
  })

  it('refuses wrong facts beside their fields, keeps what was typed, and makes nothing', async () => {
    const res = await asked(
      form({ ...bakery, phone: 'appelez-nous', email: 'pas une adresse', opens_monday: '08:00', closes_tuesday: '06:00' }),
    )
    expect(res.statusCode).toBe(400)
    const $ = cheerio.load(res.body)
    expect($('#f-phone-error').text()).toContain('Indiquez un numéro de téléphone en chiffres')
    expect($('#f-email-error').text()).toContain('Indiquez une adresse e-mail')
    expect($('#f-closes_monday-error').text()).toContain('Indiquez les deux heures')
    expect($('#f-closes_tuesday-error').text()).toContain('L’heure de fermeture doit venir après')
    expect($('#problems li').length).toBe(4)
    // Everything typed is on the form again.
    expect($('#f-phone').attr('value')).toBe('appelez-nous')
    expect($('#f-city').attr('value')).toBe('Lyon')
    expect($('#f-description').text()).toBe(bakery.description)
    expect($('#f-business_type option[selected]').attr('value')).toBe('bakery')
    expect($('#f-opens_monday').attr('value')).toBe('08:00')
    expect(await sitesOf()).toEqual([])
  })

  it('makes a French draft of the bakery with its name, town, phone and hours, unpublished', async () => {
    const res = await asked(form(bakery))
    expect(res.statusCode, res.body).toBe(303)
    const [site] = await sitesOf()
    expect(res.headers['location']).toBe(`/app/sites/${site!.id}?done=site-created`)
    const pages = await app.db
      .selectFrom('pages')
      .select(['id', 'path', 'locale', 'title'])
      .where('site_id', '=', site!.id)
      .orderBy('path')
      .execute()
    expect(pages.length).toBe(5)
    expect(new Set(pages.map((p) => p.locale))).toEqual(new Set(['fr']))
    const blocks = await app.db
      .selectFrom('blocks')
      .select(['type', 'content'])
      .where(
        'page_id',
        'in',
        pages.map((p) => p.id),
      )
      .execute()
    const words = JSON.stringify(blocks.map((b) => b.content))
    for (const fact of ['Boulangerie Rivière', 'Lyon', '+33 4 78 12 34 56', '12 rue de la Charité']) expect(words).toContain(fact)
    const hours = blocks.find((b) => b.type === 'opening_hours')!.content as { items: unknown[] }
    expect(hours.items).toEqual([
      { day: 'tuesday', opens: '07:00', closes: '19:30' },
      { day: 'saturday', opens: '07:30', closes: '13:00' },
    ])
    const builds = await app.db.selectFrom('builds').select('id').where('site_id', '=', site!.id).execute()
    expect(builds).toEqual([])

    // The site's screen lists the draft's pages in French.
    const screen = await app.inject({ method: 'GET', url: res.headers['location'] as string, headers: { cookie, 'accept-language': 'fr' } })
    for (const page of pages) expect(screen.body).toContain(cheerio.load(`<p>${page.title}</p>`)('p').html()!)
  })

  it('starts an empty site when no type of business is chosen', async () => {
    const other = await signedIn(app, 'atelier@example.com')
    const browser = await dashboardBrowser(app, other, '/app/start')
    const res = await post(
      app,
      '/app/sites',
      browser.cookie,
      browser.form({ name: 'Atelier', locales: 'en', default_locale: 'en', business_type: '' }),
    )
    expect(res.statusCode).toBe(303)
    const siteId = /\/app\/sites\/([^?]+)/.exec(res.headers['location'] as string)![1]!
    const pages = await app.db.selectFrom('pages').select('id').where('site_id', '=', siteId).execute()
    expect(pages).toEqual([])
  })
})
