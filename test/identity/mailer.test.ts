import { describe, expect, it } from 'vitest'
import { startSmtpServer } from '../helpers/smtp.ts'
import { Browser, startLiveApp } from './helpers.ts'

const smtp = await startSmtpServer()
const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <login@presence.test>' } })

describe('mail over SMTP', () => {
  it('sends the sign-in code by SMTP when SMTP_URL is set, and keeps nothing in the outbox', async () => {
    const person = new Browser(base)
    const sent = await person.submit(await person.get('/signin'), { email: 'smtp-user@example.com' })
    expect(sent.status).toBe(303)
    expect(smtp.received).toHaveLength(1)
    const mail = smtp.received[0]!
    expect(mail.from).toContain('login@presence.test')
    expect(mail.to.join()).toContain('smtp-user@example.com')
    expect(mail.data).toMatch(/^Subject: Your Web Presence sign-in code$/m)
    const code = /sign-in code is (\d{6})/.exec(mail.data)?.[1]
    expect(code).toMatch(/^\d{6}$/)
    expect(await app.db.selectFrom('outbox').selectAll().execute()).toEqual([])

    // The mailed code signs the person in.
    const done = await person.follow(await person.submit(await person.follow(sent), { code: code as string }))
    expect(done.status).toBe(200)
    expect(done.html).toContain('signed in as smtp-user@example.com')
  })
})
