import type { Mail } from '../../infra/mailer.ts'
import { translator, type Translator } from '../i18n/translator.ts'
import { isLocale } from '../locales.ts'
import type { NoticeContent } from './notices.ts'
import type { NoticeKind } from './settings.ts'

/**
 * The notification mails (DESIGN.md 17), plain text only: what a visitor typed goes into the
 * text part as it is, where no markup is ever read, and into the subject with line breaks and
 * control characters taken out (a header cannot be split by a visitor).
 */

export interface Recipient {
  userId: string
  email: string
  language: string | null
}

export interface MailLinks {
  baseUrl: string
  /** The unsubscribe link of this mail (one kind, or the digest). */
  unsubscribe: string
}

/** At most this much of a visitor's words goes into a mail; the dashboard shows the rest. */
const MAX_TEXT = 4000
const MAX_DIGEST_TEXT = 600

const oneLine = (value: string, max = 80) => {
  const line = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value)

export function mailTranslator(recipient: Recipient): Translator {
  return translator(isLocale(recipient.language) ? recipient.language : 'en')
}

/** A mailto: link to the visitor, the subject naming the site; undefined without an address. */
export function replyLink(t: Translator, notice: NoticeContent): string | undefined {
  if (!notice.email || !/^[^\s@<>()"',;:\\]+@[^\s@<>()"',;:\\]+$/.test(notice.email)) return undefined
  return `mailto:${encodeURIComponent(notice.email).replace(/%40/g, '@')}?subject=${encodeURIComponent(t.t('notify.replySubject', { site: oneLine(notice.siteName) }))}`
}

function who(t: Translator, notice: NoticeContent): string {
  const name = notice.name ? oneLine(notice.name) : undefined
  if (name && notice.email) return `${name} <${notice.email}>`
  return name ?? notice.email ?? t.t('notify.someone')
}

/** Lines that say where to answer: the visitor's address, or the conversation in the dashboard. */
function answerLines(t: Translator, notice: NoticeContent, baseUrl: string): string[] {
  const lines = [t.t('notify.from', { who: who(t, notice) })]
  const reply = replyLink(t, notice)
  if (reply) lines.push(t.t('notify.reply', { link: reply }))
  if (notice.kind === 'handoff' && notice.sessionId)
    lines.push(t.t('notify.open', { link: `${baseUrl}/app/conversations/${notice.sessionId}` }))
  return lines
}

/** One mail at once about one notice. */
export function instantMail(recipient: Recipient, notice: NoticeContent, links: MailLinks): Mail {
  const t = mailTranslator(recipient)
  const site = oneLine(notice.siteName)
  const name = notice.name ? oneLine(notice.name) : notice.email ? oneLine(notice.email) : t.t('notify.someone')
  const text = [
    t.t(`notify.intro.${notice.kind}`, { name, site }),
    '',
    notice.text ? clip(notice.text, MAX_TEXT) : t.t('notify.noText'),
    '',
    ...answerLines(t, notice, links.baseUrl),
    t.t('notify.all', { link: `${links.baseUrl}/app/leads` }),
    '',
    '-- ',
    t.t('notify.why.instant', { kind: notice.kind }),
    t.t('notify.change', { link: `${links.baseUrl}/app/notifications` }),
    t.t('notify.unsubscribe', { link: links.unsubscribe }),
  ].join('\n')
  return withUnsubscribe(
    { to: recipient.email, subject: oneLine(t.t(`notify.subject.${notice.kind}`, { name, site }), 200), text: `${text}\n` },
    links,
  )
}

/** The daily digest of what arrived since `since`, oldest first. */
export function digestMail(recipient: Recipient, notices: readonly NoticeContent[], since: Date, links: MailLinks): Mail {
  const t = mailTranslator(recipient)
  const items = notices.flatMap((notice) => [
    t.t('notify.digest.item', { time: t.dateTime(notice.createdAt), kind: notice.kind, site: oneLine(notice.siteName) }),
    notice.text ? clip(notice.text, MAX_DIGEST_TEXT) : t.t('notify.noText'),
    ...answerLines(t, notice, links.baseUrl),
    '',
  ])
  const text = [
    t.t('notify.digest.intro', { since: t.dateTime(since) }),
    '',
    ...items,
    t.t('notify.all', { link: `${links.baseUrl}/app/leads` }),
    '',
    '-- ',
    t.t('notify.digest.why'),
    t.t('notify.change', { link: `${links.baseUrl}/app/notifications` }),
    t.t('notify.digest.unsubscribe', { link: links.unsubscribe }),
  ].join('\n')
  return withUnsubscribe(
    { to: recipient.email, subject: t.t('notify.digest.subject', { count: notices.length }), text: `${text}\n` },
    links,
  )
}

/** RFC 2369 List-Unsubscribe and RFC 8058 one-click: a mail program's own "unsubscribe" button posts to the link. */
function withUnsubscribe(mail: Mail, links: MailLinks): Mail {
  return { ...mail, headers: { 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }
}

export type { NoticeKind }
