import { request as httpRequest } from 'node:http'
import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { addMember } from '../../src/domain/accounts/members.ts'
import { CONSENT_VERSION } from '../../src/domain/leads/consent.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueDigests } from '../../src/domain/notifications/deliver.ts'
import { FORM_MIN_AGE_MS } from '../../src/sites/form-token.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { startSmtpServer, mailText, type ReceivedMail } from '../helpers/smtp.ts'
import { eventually, until } from '../helpers/polling.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { afterAuditFlush } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'
import { makeTeam, memberBrowser, person, sessionCookie } from '../teams/helpers.ts'

// Mail to the account's owners and editors when visitors write (DESIGN.md 17), over real HTTP
// and a real SMTP server: each person's language and choice per kind, the reply and unsubscribe
// links, RFC 8058 one-click, the daily digest, and links that were tampered with.
const HOST = 'notify-bakery.example'
const smtp = await startSmtpServer()
const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <news@presence.test>' } })

/** A request to the listening service with its own Host header (a hosted site's), as a browser sends it. */
function raw(method: string, path: string, options: { host?: string; body?: string; headers?: Record<string, string> } = {}) {
  const url = new URL(base)
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        agent: false,
        headers: {
          host: options.host ?? url.host,
          ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

const header = (mail: ReceivedMail, name: string) =>
  new RegExp(`^${name}:[ \\t]*(.*(?:\\n[ \\t].*)*)$`, 'mi')
    .exec(mail.data.slice(0, mail.data.indexOf('\n\n')))?.[1]
    ?.replace(/\n[ \t]+/g, ' ')
    .trim()
/** A header's text with RFC 2047 encoded words decoded. */
const decoded = (value: string | undefined) =>
  (value ?? '').replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  )
const unsubscribeLink = (mail: ReceivedMail) => /<(http[^>]+\/unsubscribe\/[^>]+)>/.exec(header(mail, 'List-Unsubscribe') ?? '')?.[1]

/** The settings a member saves on /app/notifications, with the page's CSRF token. */
async function choose(member: Parameters<typeof memberBrowser>[1], choices: Record<string, string>) {
  const browser = memberBrowser(base, member)
  const page = await browser.get('/app/notifications')
  expect(page.status).toBe(200)
  const csrf = page.$('form[action="/app/notifications"] input[name=_csrf]').val() as string
  const saved = await browser.post('/app/notifications', { _csrf: csrf, ...choices })
  expect(saved).toMatchObject({ status: 303, location: '/app/notifications?done=saved' })
}

describe('notification mails', () => {
  let team: Awaited<ReturnType<typeof makeTeam>>
  let digester: { userId: string; email: string; cookie: string; role: 'editor' }
  let hidden: Record<string, string>

  async function contactMessage(message: string, email = 'ada@example.org') {
    const res = await raw('POST', '/_wps/forms/contact', {
      host: HOST,
      headers: { origin: `https://${HOST}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden, name: 'Ada Visitor', email, message, consent: 'yes' }).toString(),
    })
    expect(res.status, res.body).toBe(200)
  }

  const settled = () =>
    eventually(async () => {
      const pending = await app.db
        .selectFrom('jobs')
        .select('name')
        .where('name', 'like', 'notify.%')
        .where('state', 'in', ['queued', 'running'])
        .where('run_at', '<=', new Date())
        .execute()
      expect(pending).toEqual([])
    }, 15_000)

  it(
    'sends the owner who chose French a French mail at once, the member who chose none nothing, and the digest reader only the digest',
    async () => {
      team = await makeTeam(app, 'pro')
      const second = await person(app, `digest-${team.accountId.slice(-6).toLowerCase()}@example.com`, team.accountId)
      await addMember(app.db, team.accountId, second.id, 'editor')
      digester = { userId: second.id, email: second.email, cookie: await sessionCookie(app, second.id, team.accountId), role: 'editor' }
      await app.db.updateTable('users').set({ language: 'fr' }).where('id', '=', team.owner.userId).execute()
      await choose(team.editor, { contact_form: 'none', assistant_lead: 'instant', handoff: 'instant' })
      await choose(digester as never, { contact_form: 'digest', assistant_lead: 'digest', handoff: 'none' })

      const site = await bakerySite(app, { accountId: team.accountId, hostname: HOST })
      expect((await buildSite(app, site.id)).status).toBe('succeeded')
      const page = await raw('GET', '/contact', { host: HOST })
      const $ = cheerio.load(page.body)
      hidden = Object.fromEntries(
        $('form input[type=hidden]')
          .map((_, el) => [[$(el).attr('name')!, ($(el).val() as string) ?? '']])
          .get(),
      )
      await new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))

      const words = 'Two rye loaves for Saturday, please.\n<b>Not bold</b> <a href="https://evil.example">click</a> & more'
      await contactMessage(words)

      const toOwner = await until(() => smtp.to(team.owner.email)[0], 15_000, 'the mail to the owner')
      expect(decoded(header(toOwner, 'Subject'))).toBe('Nouveau message de Ada Visitor sur Hansen Bakery')
      expect(header(toOwner, 'Content-Type')).toMatch(/^text\/plain; charset=utf-8/)
      expect(header(toOwner, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click')
      expect(unsubscribeLink(toOwner)).toMatch(new RegExp(`^${base}/unsubscribe/contact_form\\.`))
      const text = mailText(toOwner)
      expect(text).toContain('Ada Visitor vous a écrit via le formulaire de contact de Hansen Bakery :')
      // The visitor's words as they typed them: plain text, nothing of it read as markup.
      expect(text).toContain(words)
      expect(text).toContain('De : Ada Visitor <ada@example.org>')
      expect(text).toContain(`Répondre : mailto:ada@example.org?subject=${encodeURIComponent('Votre message à Hansen Bakery')}`)
      expect(text).toContain(`Ne plus recevoir ces e-mails : ${unsubscribeLink(toOwner)}`)
      expect(text).toContain(`${base}/app/notifications`)

      await settled()
      expect(smtp.to(team.editor.email)).toEqual([])
      expect(smtp.to(team.viewer.email)).toEqual([])
      expect(smtp.to(digester.email)).toEqual([])
      // Stored sealed: the notice row holds no personal data, the outbox nothing (SMTP is set).
      const notices = await app.db.selectFrom('notices').selectAll().where('account_id', '=', team.accountId).execute()
      expect(notices).toHaveLength(1)
      expect(JSON.stringify(notices)).not.toMatch(/ada@example\.org|rye/)
    },
    SETUP_TIMEOUT_MS,
  )

  it('sends the digest once a day to the person who chose it, with every message since the last one', async () => {
    await contactMessage('Is the bakery open on Sunday?', 'ben@example.org')
    const consent = { version: CONSENT_VERSION, digest: 'c'.repeat(64), locale: 'en' as const, acceptedAt: new Date() }
    const site = await app.db.selectFrom('sites').select('id').where('account_id', '=', team.accountId).executeTakeFirstOrThrow()
    await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: 'cleo@example.org',
      name: 'Cleo',
      note: 'Catering for 40 people?',
      consent,
      source: 'assistant',
    })
    await settled()
    // The assistant's lead: at once to the owner and the editor who chose it at once.
    expect(smtp.to(team.editor.email)).toHaveLength(1)
    expect(decoded(header(smtp.to(team.editor.email)[0]!, 'Subject'))).toBe('New lead on Hansen Bakery: Cleo')
    expect(smtp.to(team.owner.email)).toHaveLength(3)
    expect(smtp.to(digester.email)).toEqual([])

    // The day's run: one digest job per person on the digest.
    expect(await queueDigests(app.db)).toBe(1)
    const digest = await until(() => smtp.to(digester.email)[0], 15_000, 'the digest')
    expect(decoded(header(digest, 'Subject'))).toBe('Your daily summary: 3 new messages')
    expect(header(digest, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click')
    expect(unsubscribeLink(digest)).toMatch(/\/unsubscribe\/digest\./)
    const text = mailText(digest)
    for (const expected of [
      'Two rye loaves',
      'Is the bakery open on Sunday?',
      'Catering for 40 people?',
      'mailto:ben@example.org',
      'lead from the assistant',
    ])
      expect(text).toContain(expected)

    // Run again the same day: nothing new arrived, so no second mail.
    await queueDigests(app.db)
    await settled()
    expect(smtp.to(digester.email)).toHaveLength(1)
  })

  it('stops a kind by the unsubscribe link without signing in, by the button or by one-click, and records it', async () => {
    const link = unsubscribeLink(smtp.to(team.owner.email)[0]!)!
    const path = new URL(link).pathname
    const shown = await raw('GET', path)
    expect(shown.status).toBe(200)
    const $ = cheerio.load(shown.body)
    expect($('html').attr('lang')).toBe('fr')
    expect($('main').text()).toContain(
      `Voulez-vous que ${team.owner.email} ne reçoive plus d’e-mails sur les nouveaux messages du formulaire de contact ?`,
    )
    expect($('main form').attr('action')).toBe(path)

    // The mail program's one-click POST (RFC 8058): no cookie, no CSRF token.
    const oneClick = await raw('POST', path, {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    })
    expect(oneClick.status).toBe(200)
    expect(cheerio.load(oneClick.body)('h1').text()).toBe('Désabonnement confirmé')
    const row = await app.db
      .selectFrom('notification_settings')
      .selectAll()
      .where('user_id', '=', team.owner.userId)
      .where('account_id', '=', team.accountId)
      .where('kind', '=', 'contact_form')
      .executeTakeFirstOrThrow()
    expect(row.delivery).toBe('none')
    expect(row.unsubscribed_at).toBeInstanceOf(Date)
    await afterAuditFlush()
    const audit = await app.db
      .selectFrom('audit_log')
      .select(['user_id', 'status', 'path'])
      .where('account_id', '=', team.accountId)
      .where('operation', '=', 'notifications.unsubscribe')
      .execute()
    expect(audit).toEqual([{ user_id: team.owner.userId, status: 200, path: '/unsubscribe/:token' }])
    expect(
      cheerio
        .load((await raw('GET', path)).body)('main')
        .text(),
    ).toContain('ne reçoit déjà plus')

    // The page's own button (a plain form post) stops the digest the same way.
    const digestPath = new URL(unsubscribeLink(smtp.to(digester.email)[0]!)!).pathname
    const button = await raw('POST', digestPath, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
    expect(button.status).toBe(200)
    const kinds = await app.db
      .selectFrom('notification_settings')
      .select(['kind', 'delivery'])
      .where('user_id', '=', digester.userId)
      .orderBy('kind')
      .execute()
    expect(kinds).toEqual([
      { kind: 'assistant_lead', delivery: 'none' },
      { kind: 'contact_form', delivery: 'none' },
      { kind: 'handoff', delivery: 'none' },
    ])

    // The owner hears of no further contact-form message; the settings page says how it was stopped.
    const before = smtp.to(team.owner.email).length
    await contactMessage('One more question.', 'dan@example.org')
    await settled()
    expect(smtp.to(team.owner.email)).toHaveLength(before)
    const settings = await memberBrowser(base, team.owner).get('/app/notifications')
    expect(settings.$('input[name=contact_form][value=none]').attr('checked')).toBeDefined()
    expect(settings.$('main').text()).toContain('via le lien d’un e-mail')
  })

  it('refuses a forged or altered unsubscribe link with 404 and changes nothing', async () => {
    const link = new URL(unsubscribeLink(smtp.to(team.editor.email)[0]!)!).pathname
    const [kind, userId, accountId, signature] = link.split('/').pop()!.split('.') as [string, string, string, string]
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A')
    const forged = [
      `${kind}.${userId}.${accountId}.${flipped}`,
      `contact_form.${userId}.${accountId}.${signature}`,
      `${kind}.${team.owner.userId}.${accountId}.${signature}`,
      `${kind}.${userId}.${accountId}`,
      'nonsense',
    ]
    const before = await app.db.selectFrom('notification_settings').selectAll().orderBy('user_id').orderBy('kind').execute()
    for (const token of forged) {
      for (const method of ['GET', 'POST']) {
        const res = await raw(method, `/unsubscribe/${token}`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        })
        expect(res.status, `${method} ${token} ${res.body.slice(0, 600)}`).toBe(404)
        expect(cheerio.load(res.body)('h1').text()).toBe('This link is not valid')
      }
    }
    expect(await app.db.selectFrom('notification_settings').selectAll().orderBy('user_id').orderBy('kind').execute()).toEqual(before)
  })

  it('tells of a visitor asking the assistant for a person, with their last words and the conversation to open', async () => {
    await withAssistantAddOn(app.db, team.accountId)
    await createSite(app.db, {
      name: 'Harbour Help',
      accountId: team.accountId,
      hostname: 'notify-help.example',
      settings: { assistant: { enabled: true, capabilities: { lead: true, handoff: true } } },
    })
    const json = { 'content-type': 'application/json' }
    const opened = await fetch(`${base}/api/agent/bootstrap`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: 'https://notify-help.example/' }),
    })
    expect(opened.status, await opened.clone().text()).toBe(200)
    const { session_id, session_token } = (await opened.json()) as { session_id: string; session_token: string }
    const session = { session_id, session_token }
    const asked = await fetch(`${base}/api/agent/chat`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ ...session, turn_id: 't_notify_first_1', message: 'Can I talk to a human please? <i>urgent</i>' }),
    })
    expect(asked.status, await asked.clone().text()).toBe(200)
    expect(((await asked.json()) as { handoff: { state: string } }).handoff.state).toBe('requested')

    const toEditor = await until(
      () => smtp.to(team.editor.email).find((m) => /person/.test(decoded(header(m, 'Subject')))),
      15_000,
      'the handoff mail',
    )
    expect(decoded(header(toEditor, 'Subject'))).toBe('A visitor on Harbour Help asks to talk to a person')
    const text = mailText(toEditor)
    expect(text).toContain('Can I talk to a human please? <i>urgent</i>')
    expect(text).toContain(`Open the conversation: ${base}/app/conversations/${session.session_id}`)
    expect(unsubscribeLink(toEditor)).toMatch(/\/unsubscribe\/handoff\./)
    const toOwner = await until(
      () => smtp.to(team.owner.email).find((m) => /Harbour Help/.test(decoded(header(m, 'Subject')))),
      15_000,
      'the owner’s',
    )
    expect(decoded(header(toOwner, 'Subject'))).toBe('Un visiteur de Harbour Help souhaite parler à quelqu’un')

    // Asking again while the request waits is no new request: no second mail.
    const again = await fetch(`${base}/api/agent/chat`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ ...session, turn_id: 't_notify_second_2', message: 'Hello? Is a person coming?' }),
    })
    expect(again.status).toBe(200)
    await settled()
    expect(smtp.to(team.editor.email).filter((m) => /person/.test(decoded(header(m, 'Subject'))))).toHaveLength(1)
  })
})
