import { describe, expect, it } from 'vitest'
import { startSmtpServer, type ReceivedMail } from '../helpers/smtp.ts'
import { Browser, startLiveApp } from '../identity/helpers.ts'

const smtp = await startSmtpServer()
const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <login@presence.test>' } })

/** The mail's text body, its transfer encoding (base64 or quoted-printable) undone. */
function body(mail: ReceivedMail): string {
  const data = mail.data.replace(/\r\n/g, '\n')
  const split = data.indexOf('\n\n')
  const headers = data.slice(0, split)
  const text = data.slice(split + 2)
  if (/^Content-Transfer-Encoding: base64/im.test(headers)) return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (!/^Content-Transfer-Encoding: quoted-printable/im.test(headers)) return text
  const bytes = text.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

function subject(mail: ReceivedMail): string {
  const line = /^Subject: (.*(?:\r\n[ \t].*)*)/m.exec(mail.data)?.[1] ?? ''
  // RFC 2047 encoded words, as nodemailer writes a subject beyond ASCII.
  return line.replace(/\r\n[ \t]/g, '').replace(/=\?utf-8\?([QB])\?(.*?)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  )
}

async function signIn(person: Browser, email: string) {
  const sent = await person.submit(await person.get('/signin'), { email }, { action: '/signin' })
  expect(sent.status).toBe(303)
  const mail = smtp.to(email).at(-1)!
  const code = /(\d{6})/.exec(body(mail))![1]!
  const entered = await person.submit(await person.follow(sent), { code }, { action: '/signin/code' })
  if (entered.status !== 303) throw new Error(`${entered.status} ${entered.$('main').text()}`)
  const done = await person.follow(entered)
  return { mail, done }
}

describe('the sign-in pages and mail in the person’s language', () => {
  it('sends the sign-in code mail in German for Accept-Language: de, and shows the pages in German', async () => {
    const person = new Browser(base, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } })
    const form = await person.get('/signin')
    expect(form.$('html').attr('lang')).toBe('de')
    expect(form.$('h1').text()).toBe('Anmelden')
    expect(form.$('label[for=email]').text()).toBe('E-Mail-Adresse')
    const { mail, done } = await signIn(person, 'baeckerin@example.de')
    expect(subject(mail)).toBe('Ihr Anmeldecode für Web Presence')
    expect(body(mail)).toContain('Ihr Anmeldecode lautet')
    expect(done.html).toContain('Sie sind als baeckerin@example.de angemeldet.')
    // The language of the first sign-in became the person's setting, for their mail too.
    const user = await app.db
      .selectFrom('users')
      .select('language')
      .where('last_sign_in_at', 'is not', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirst()
    expect(user?.language).toBe('de')
  })

  it('falls back to English for a language it does not speak, and says a wrong code in the page’s language with its plural', async () => {
    const person = new Browser(base, { headers: { 'accept-language': 'it-IT, es;q=0.8' } })
    expect((await person.get('/signin')).$('html').attr('lang')).toBe('en')
    const french = new Browser(base, { headers: { 'accept-language': 'fr-FR' } })
    const sent = await french.submit(await french.get('/signin'), { email: 'boulangere@example.fr' }, { action: '/signin' })
    const codePage = await french.follow(sent)
    expect(codePage.$('h1').text()).toBe('Saisissez votre code')
    const wrong = await french.submit(codePage, { code: '000000' }, { action: '/signin/code' })
    expect(wrong.status).toBe(400)
    expect(wrong.$('.error').text()).toMatch(/^Ce code n’est pas le bon\. Il vous reste \d essais\.$/)
    expect(subject(smtp.to('boulangere@example.fr').at(-1)!)).toBe('Votre code de connexion Web Presence')
  })

  it('switches the language on every page without scripts: kept in the browser, and as the setting of a signed-in person', async () => {
    const person = new Browser(base, { headers: { 'accept-language': 'en' } })
    const form = await person.get('/signin')
    const switched = await person.submit(form, {}, { action: '/language', button: ['lang', 'fr'] })
    expect(switched.status).toBe(303)
    expect(switched.location).toBe('/signin')
    const french = await person.follow(switched)
    if (!french.$('html').attr('lang')) throw new Error(`${french.status} ${french.html.slice(0, 300)}`)
    expect(french.$('html').attr('lang')).toBe('fr')
    expect(french.$('h1').text()).toBe('Connexion')
    expect(french.$('button[lang=fr]').attr('aria-pressed')).toBe('true')

    await signIn(person, 'owner-fr@example.com')
    const dashboard = await person.get('/app')
    expect(dashboard.$('html').attr('lang')).toBe('fr')
    expect(dashboard.$('nav a[href="/app/billing"]').text()).toBe('Offre et facturation')
    // From the dashboard the person chooses German: their setting, which wins over the browser's cookie.
    const german = await person.follow(await person.submit(dashboard, {}, { action: '/language', button: ['lang', 'de'] }))
    expect(german.$('html').attr('lang')).toBe('de')
    const user = await app.db.selectFrom('users').select('language').where('language', '=', 'de').execute()
    expect(user.length).toBeGreaterThanOrEqual(1)
  })

  it('refuses a language it does not speak and a switch without its CSRF token, as a page', async () => {
    const person = new Browser(base)
    const form = await person.get('/signin')
    const bad = await person.submit(form, {}, { action: '/language', button: ['lang', 'it'] })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toContain('text/html')
    const forged = await person.post('/language', { lang: 'de', return_to: '/signin', _csrf: 'forged' })
    expect(forged.status).toBe(403)
    expect(forged.$('h1').text()).toBe('This form has expired')
  })
})
