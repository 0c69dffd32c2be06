import { IntlMessageFormat } from 'intl-messageformat'
import { expect } from 'vitest'
import type { FastifyInstance as App } from 'fastify'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { en } from '../../src/domain/i18n/catalogues/en.ts'
import type { Locale } from '../../src/domain/locales.ts'
import type { ReceivedMail } from '../helpers/smtp.ts'
import { Browser } from '../identity/helpers.ts'
import { person, sessionCookie } from '../teams/helpers.ts'

/** A mail's header block and its text body, the transfer encoding (base64 or quoted-printable) undone. */
export function mailParts(mail: ReceivedMail): { subject: string; text: string } {
  const data = mail.data.replace(/\r\n/g, '\n')
  const split = data.indexOf('\n\n')
  const headers = data.slice(0, split)
  const raw = data.slice(split + 2)
  let text = raw
  if (/^Content-Transfer-Encoding: base64/im.test(headers)) text = Buffer.from(raw.replace(/\s+/g, ''), 'base64').toString('utf8')
  else if (/^Content-Transfer-Encoding: quoted-printable/im.test(headers)) {
    const bytes = raw.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    text = Buffer.from(bytes, 'latin1').toString('utf8')
  }
  const line = /^Subject: (.*(?:\n[ \t].*)*)/m.exec(headers)?.[1] ?? ''
  // RFC 2047 encoded words, as nodemailer writes a subject beyond ASCII.
  const subject = line.replace(/\n[ \t]/g, '').replace(/=\?utf-8\?([QB])\?(.*?)\?=\s*/gi, (_m, kind: string, words: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(words, 'base64').toString('utf8')
      : Buffer.from(
          words.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  )
  return { subject, text }
}

type Element = { type: number; value?: string; options?: Record<string, { value: Element[] }>; children?: Element[] }

function literals(elements: Element[], found: string[] = []): string[] {
  for (const element of elements) {
    if (element.type === 0 && element.value) found.push(element.value)
    for (const option of Object.values(element.options ?? {})) literals(option.value, found)
    if (element.children) literals(element.children, found)
  }
  return found
}

/**
 * The English sentences of the catalogue's keys under `prefixes`: each run of words of a message
 * between its placeholders and tags, when it has three words or more (shorter ones, names and
 * shared words, may be the same in every language).
 */
export function englishSentences(...prefixes: string[]): string[] {
  const sentences = new Set<string>()
  for (const [key, message] of Object.entries(en)) {
    if (!prefixes.some((prefix) => key.startsWith(prefix))) continue
    for (const literal of literals(new IntlMessageFormat(message, 'en').getAst() as Element[]))
      for (const part of literal.split(/[\n:;()]/)) {
        const words = part.trim()
        if (/[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}/i.test(words)) sentences.add(words)
      }
  }
  return [...sentences]
}

/** Fails naming every English sentence of those keys that `text` still carries. */
export function expectNoEnglish(text: string, ...prefixes: string[]): void {
  const flat = text.replace(/\s+/g, ' ')
  expect(englishSentences(...prefixes).filter((sentence) => flat.includes(sentence))).toEqual([])
}

/**
 * A person with their own account (on `plan`) signed in to the dashboard in a browser: with the
 * language `setting` (their choice, as the switch stores it) or none, and the browser's
 * Accept-Language.
 */
export async function ownerIn(
  app: App,
  base: string,
  email: string,
  options: { setting?: Locale; acceptLanguage?: string; plan?: Plan } = {},
) {
  const user = await person(app, email)
  if (options.setting) await app.db.updateTable('users').set({ language: options.setting }).where('id', '=', user.id).execute()
  if (options.plan) await updateAccount(app.db, user.accountId, { plan: options.plan })
  const browser = new Browser(base, options.acceptLanguage ? { headers: { 'accept-language': options.acceptLanguage } } : {})
  const cookie = await sessionCookie(app, user.id, user.accountId)
  ;(browser as unknown as { cookies: Map<string, string> }).cookies.set('wps_session', cookie.split('=')[1]!)
  return { user, accountId: user.accountId, browser }
}
