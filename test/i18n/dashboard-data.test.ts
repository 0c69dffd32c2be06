import { describe, expect, it } from 'vitest'
import { eventually, until } from '../helpers/polling.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { expectNoEnglish, mailParts, ownerIn } from './helpers.ts'

// The accounts page, Your data (the export and its mail, the deletion and the page of an account
// waiting to be erased) in German and French over real HTTP, forms without JavaScript.
describe('the accounts and Your data pages and the export mail in German and French', async () => {
  const smtp = await startSmtpServer()
  const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, RATE_LIMIT_FACTOR: '10' } })

  it('lists the accounts in German, makes the export and mails its link in German', async () => {
    const { browser } = await ownerIn(app, base, 'archiv@example.de', { setting: 'de', plan: 'pro' })
    const accounts = await browser.get('/app/accounts')
    expect(accounts.$('h1').text()).toBe('Ihre Konten')
    expect(accounts.$('main').text()).toContain('Sie gehören zu 1 Konto.')
    expect(accounts.$('main').text()).toContain('Sie arbeiten in diesem Konto')
    expectNoEnglish(accounts.$('body').text(), 'accounts.', 'nav.', 'layout.')

    const data = await browser.get('/app/your-data')
    expect(data.$('h1').text()).toBe('Ihre Daten')
    expect(data.$('#export-h').text()).toBe('Alles exportieren')
    expect(data.$('#delete-h').text()).toBe('Dieses Konto löschen')
    expectNoEnglish(data.$('body').text(), 'data.', 'nav.', 'layout.')

    const asked = await browser.submit(data, {}, { action: '/app/your-data/exports' })
    expect(asked.location).toBe('/app/your-data?done=export-requested')
    expect((await browser.follow(asked)).$('.notice').text()).toContain('Ihr Export wird erstellt.')
    const mail = mailParts(await until(async () => smtp.to('archiv@example.de').at(-1), 60_000, 'the export mail'))
    expect(mail.subject).toBe('Ihr Export ist fertig')
    expect(mail.text).toContain('Alles, was Ihr Konto enthält, liegt in einer ZIP-Datei bereit, herunterladbar bis')
    expect(mail.text).toContain('/app/exports/')
    expectNoEnglish(mail.text, 'mail.export.')
    await eventually(async () => expect((await browser.get('/app/your-data')).$('main table').text()).toContain('Bereit'), 60_000)
    const ready = await browser.get('/app/your-data')
    expect(ready.$('main table a[download]').text()).toBe('ZIP-Datei herunterladen')
    expect(ready.$('main table').text()).toMatch(/\d+ KB/)
  }, 120_000)

  it('refuses a wrong name in French beside its field, and shows the account waiting to be erased in French', async () => {
    const { browser } = await ownerIn(app, base, 'effacer@example.fr', { acceptLanguage: 'fr', plan: 'pro' })
    const data = await browser.get('/app/your-data')
    const wrong = await browser.submit(data, { confirm: 'pas le bon nom' }, { action: '/app/your-data/delete' })
    expect(wrong.status).toBe(422)
    expect(wrong.$('#f-confirm-error').text()).toContain('Ce n’est pas le nom du compte.')
    expect(wrong.$('#f-confirm').attr('value')).toBe('pas le bon nom')
    const name = wrong.$('#delete-h').parent().find('strong').first().text()
    const deleted = await browser.submit(wrong, { confirm: name }, { action: '/app/your-data/delete' })
    expect(deleted.status, deleted.html).toBe(303)
    const suspended = await browser.get('/app')
    expect(suspended.$('h1').text()).toBe('Ce compte est en cours de suppression')
    expect(suspended.$('main').text()).toContain('Vous avez changé d’avis ?')
    expectNoEnglish(suspended.$('body').text(), 'data.', 'layout.')
    const restored = await browser.submit(suspended, {}, { action: '/app/your-data/restore' })
    expect((await browser.follow(restored)).$('.notice').text()).toBe(
      'Votre compte a été restauré. Ses sites sont de nouveau en ligne, comme avant.',
    )
  })
})
