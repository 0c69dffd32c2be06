import { createServer, type AddressInfo, type Socket } from 'node:net'
import { cleanUpAfter } from './cleanup.ts'

export interface ReceivedMail {
  from: string
  to: string[]
  /** The message as sent: headers, a blank line, the body (dot-stuffing undone, soft line breaks kept). */
  data: string
}

export interface SmtpServer {
  /** smtp://127.0.0.1:PORT, for SMTP_URL. */
  url: string
  received: ReceivedMail[]
  /** The mails sent to one address. */
  to(address: string): ReceivedMail[]
  close(): Promise<void>
}

/** A small SMTP server on loopback (RFC 5321 happy path) that keeps every mail it receives. */
export async function startSmtpServer(): Promise<SmtpServer> {
  const received: ReceivedMail[] = []
  const sockets = new Set<Socket>()
  const server = createServer((socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let mail: ReceivedMail = { from: '', to: [], data: '' }
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  cleanUpAfter(close)
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    to: (address) => received.filter((mail) => mail.to.some((rcpt) => rcpt.toLowerCase().includes(`<${address.toLowerCase()}>`))),
    close,
  }
}

/** The text of a mail's body with quoted-printable soft line breaks and escapes undone. */
export function mailText(mail: ReceivedMail): string {
  const body = mail.data.slice(mail.data.indexOf('\n\n') + 2)
  if (!/^Content-Transfer-Encoding: quoted-printable$/im.test(mail.data)) return body
  const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}
