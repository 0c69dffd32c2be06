import { describe, expect, it } from 'vitest'
import { digestMail, instantMail, replyLink } from '../../src/domain/notifications/mails.ts'
import type { NoticeContent } from '../../src/domain/notifications/notices.ts'
import { translator } from '../../src/domain/i18n/translator.ts'

const notice = (over: Partial<NoticeContent> = {}): NoticeContent => ({
  id: 'ntc_1',
  accountId: 'acct_1',
  kind: 'contact_form',
  siteName: 'Hansen Bakery',
  createdAt: new Date('2026-11-28T09:30:00Z'),
  name: 'Ada',
  email: 'ada@example.org',
  text: 'Hello',
  sessionId: null,
  ...over,
})
const links = { baseUrl: 'https://presence.test', unsubscribe: 'https://presence.test/unsubscribe/x' }
const person = (language: string | null) => ({ userId: 'usr_1', email: 'owner@example.com', language })

describe('notification mails', () => {
  it('keeps a visitor’s line breaks and control characters out of the subject, and their markup as text', () => {
    const mail = instantMail(person(null), notice({ name: 'Eve\r\nBcc: victim@example.com', text: '<script>alert(1)</script>' }), links)
    expect(mail.subject).toBe('New message from Eve Bcc: victim@example.com on Hansen Bakery')
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.text).toContain('<script>alert(1)</script>')
    expect(mail.headers).toEqual({ 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' })
  })

  it('answers by mailto only to a plain address, and speaks the person’s language or English', () => {
    const t = translator('de')
    expect(replyLink(t, notice())).toBe(`mailto:ada@example.org?subject=${encodeURIComponent('Ihre Nachricht an Hansen Bakery')}`)
    expect(replyLink(t, notice({ email: 'a@b.example?bcc=x@y.example' }))).toBeUndefined()
    expect(replyLink(t, notice({ email: null }))).toBeUndefined()
    expect(instantMail(person('xx'), notice(), links).subject).toBe('New message from Ada on Hansen Bakery')
    expect(instantMail(person('de'), notice(), links).subject).toBe('Neue Nachricht von Ada über Hansen Bakery')
  })

  it('counts the digest’s messages in the subject and lists each with how to answer', () => {
    const mail = digestMail(
      person('fr'),
      [notice(), notice({ id: 'ntc_2', kind: 'handoff', name: null, email: null, text: 'A person please', sessionId: 'ag_1' })],
      new Date('2026-11-27T07:00:00Z'),
      links,
    )
    expect(mail.subject).toBe('Votre récapitulatif du jour : 2 nouveaux messages')
    expect(mail.text).toContain('Ouvrir la conversation : https://presence.test/app/conversations/ag_1')
    expect(mail.text).toContain('Ne plus recevoir le récapitulatif du jour : https://presence.test/unsubscribe/x')
  })
})
