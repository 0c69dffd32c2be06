import { describe, expect, it } from 'vitest'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { expectNoEnglish, ownerIn } from './helpers.ts'

// The developers' pages (API tokens, webhooks, the audit log) in German and French over real
// HTTP, forms without JavaScript: labels, refusals beside their fields, the secret shown once,
// the lines after an action, dates and numbers in the language's formats.
describe('the API tokens, webhooks and audit log pages in German and French', async () => {
  const { app, base } = await startLiveApp()

  it('creates, refuses and revokes a token in German', async () => {
    const { browser } = await ownerIn(app, base, 'entwicklerin@example.de', { setting: 'de', plan: 'pro' })
    const page = await browser.get('/app/tokens')
    expect(page.status, page.html).toBe(200)
    expect(page.$('h1').text()).toBe('API-Tokens')
    expect(page.$('#create-token').text()).toBe('Token erstellen')
    expect(page.$('label[for=f-expires_in_days]').text()).toContain('Läuft ab in (Tagen)')
    expectNoEnglish(page.$('body').text(), 'tokens.', 'nav.', 'layout.')

    // Posted as the form without a scope checked (the browser helper would send every checkbox).
    const refused = await browser.post('/app/tokens', {
      _csrf: page.$('input[name=_csrf]').first().attr('value')!,
      name: '',
      expires_in_days: 'bald',
    })
    expect(refused.status).toBe(400)
    expect(refused.$('#f-name-error').text()).toContain('Bitte füllen Sie dieses Feld aus.')
    expect(refused.$('#f-scopes-error').text()).toContain('Wählen Sie mindestens eine Berechtigung.')
    expect(refused.$('#f-expires_in_days-error').text()).toContain('Geben Sie eine ganze Zahl von Tagen zwischen 1 und 3650 ein')
    expect(refused.$('#f-expires_in_days').attr('value')).toBe('bald')

    const made = await browser.submit(
      page,
      { name: 'Kasse', scopes: 'read:sites', expires_in_days: '30' },
      { action: '/app/tokens#create-token' },
    )
    expect(made.status, made.html).toBe(200)
    expect(made.$('.notice').text()).toBe('Der Token wurde erstellt.')
    expect(made.$('#secret-h').text()).toBe('Neuer Token Kasse')
    expect(made.$('#secret-h').parent().text()).toContain('Kopieren Sie ihn jetzt: Er wird nur einmal angezeigt.')
    // The expiry in 30 days, as German writes a date: day, month, year.
    expect(made.$('table').text()).toMatch(/\d{1,2}\.\d{1,2}\.\d{4}|\d{1,2}\. \w+\.? \d{4}/)
    expectNoEnglish(made.$('body').text(), 'tokens.', 'layout.')

    const revoked = await browser.follow(await browser.submit(made, {}, { action: made.$('form[action$="/revoke"]').attr('action')! }))
    expect(revoked.$('.notice').text()).toBe('Der Token wurde widerrufen.')
    expect(revoked.$('main').text()).toContain('Noch keine Tokens.')
  })

  it('shows webhooks in French, refuses a wrong address in French, and shows an endpoint in French', async () => {
    const { browser, accountId } = await ownerIn(app, base, 'developpeuse@example.fr', { acceptLanguage: 'fr', plan: 'pro' })
    const page = await browser.get('/app/webhooks')
    expect(page.$('h1').text()).toBe('Webhooks')
    expect(page.$('#new-h').text()).toBe('Ajouter un point de terminaison')
    expect(page.$('main').text()).toContain('Aucune livraison en échec.')
    expectNoEnglish(page.$('body').text(), 'webhooks.', 'nav.', 'layout.')

    const wrong = await browser.submit(page, { url: 'pas une adresse' }, { action: '/app/webhooks#new-h' })
    expect(wrong.status).toBe(400)
    expect(wrong.$('#f-url-error').text()).toContain('Saisissez une adresse web complète commençant par https://')
    expect(wrong.$('#f-url').attr('value')).toBe('pas une adresse')

    const { row } = await createEndpoint(app.db, app.keyring, accountId, {
      url: 'https://hooks.example.fr/recevoir',
      description: 'CRM',
      eventTypes: [],
    })
    const endpoint = await browser.get(`/app/webhooks/${row.id}`)
    expect(endpoint.$('h1').text()).toBe('Point de terminaison webhook')
    expect(endpoint.$('main').text()).toContain('État : actif')
    expect(endpoint.$('main').text()).toContain('Aucune tentative pour l’instant.')
    expectNoEnglish(endpoint.$('body').text(), 'webhooks.')
    const disabled = await browser.follow(await browser.submit(endpoint, {}, { action: `/app/webhooks/${row.id}/disable` }))
    expect(disabled.$('.notice').text()).toBe('Le point de terminaison a été désactivé.')
    expect(disabled.$('main').text()).toContain('État : désactivé')
  })

  it('shows the audit log in German, its count and times in German', async () => {
    const { browser } = await ownerIn(app, base, 'pruefer@example.de', { setting: 'de', plan: 'pro' })
    await browser.get('/app/tokens')
    await browser.post('/app/tokens', { name: '' })
    const log = await browser.get('/app/audit-log')
    expect(log.$('h1').text()).toBe('Protokoll')
    expect(log.$('label[for=member]').text()).toBe('Mitglied')
    expect(log.$('main').text()).toMatch(/\d+ (Eintrag|Einträge)\./)
    expect(log.$('main th').first().text()).toBe('Zeit')
    expectNoEnglish(log.$('body').text(), 'audit.', 'nav.', 'layout.')
  })
})
