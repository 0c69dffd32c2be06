import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { Browser, startLiveApp } from './helpers.ts'

interface Received {
  from: string
  to: string[]
  data: string
}

/** A small SMTP server on loopback (RFC 5321 happy path) that keeps what it receives. */
const received: Received[] = []
const smtp = createServer((socket: Socket) => {
  let mail: Received = { from: '', to: [], data: '' }
  let inData = false
  let buffer = ''
  socket.write('220 test.local ESMTP\r\n')
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8')
    let index: number
    while ((index = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, index)
      buffer = buffer.slice(index + 2)
      if (inData) {
        if (line === '.') {
          inData = false
          received.push(mail)
          mail = { from: '', to: [], data: '' }
          socket.write('250 OK queued\r\n')
        } else mail.data += `${line.startsWith('..') ? line.slice(1) : line}\n`
        continue
      }
      const verb = line.slice(0, 4).toUpperCase()
      if (verb === 'EHLO' || verb === 'HELO') socket.write('250-test.local\r\n250 8BITMIME\r\n')
      else if (verb === 'MAIL') (mail.from = line), socket.write('250 OK\r\n')
      else if (verb === 'RCPT') mail.to.push(line), socket.write('250 OK\r\n')
      else if (verb === 'DATA') (inData = true), socket.write('354 End data with <CR><LF>.<CR><LF>\r\n')
      else if (verb === 'QUIT') socket.end('221 Bye\r\n')
      else socket.write('250 OK\r\n')
    }
  })
})
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())))

const { app, base } = await startLiveApp({ env: { SMTP_URL: `smtp://127.0.0.1:${(smtp.address() as AddressInfo).port}`, MAIL_FROM: 'Web Presence <login@presence.test>' } })

describe('mail over SMTP', () => {
  it('sends the sign-in code by SMTP when SMTP_URL is set, and keeps nothing in the outbox', async () => {
    const person = new Browser(base)
    const sent = await person.submit(await person.get('/signin'), { email: 'smtp-user@example.com' })
    expect(sent.status).toBe(303)
    expect(received).toHaveLength(1)
    const mail = received[0]!
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
