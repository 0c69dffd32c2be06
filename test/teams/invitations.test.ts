import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { setAddOn } from '../../src/domain/accounts/add-ons.ts'
import { membershipsOf } from '../../src/domain/accounts/members.ts'
import { API_SCOPES, createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { sha256Hex } from '../../src/infra/crypto.ts'
import { until } from '../helpers/polling.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { Browser, startLiveApp, type Page } from '../identity/helpers.ts'
import { person, sessionCookie } from './helpers.ts'

// Invitations over real HTTP with the mails caught by an SMTP server on loopback: the owner
// invites from the dashboard and on /v1; the invitee's browser (no JavaScript) opens the link,
// gets a code and joins; a used, expired, withdrawn or unknown link explains itself; seats come
// from the plan and extra_seat, and a downgrade removes nobody but stops new invitations.
describe('invitations to an account', async () => {
  const smtp = await startSmtpServer()
  const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <team@presence.test>' } })
  let n = 0

  /** A browser already signed in (the session cookie the sign-in would have set). */
  function signedInBrowser(cookie: string): Browser {
    const browser = new Browser(base)
    ;(browser as unknown as { cookies: Map<string, string> }).cookies.set('wps_session', cookie.split('=')[1]!)
    return browser
  }

  /** An owner on `plan` signed in to the dashboard in a browser. */
  async function owner(plan: 'plus' | 'pro' | 'max', label = `o${++n}`) {
    const email = `${label}-owner@example.com`
    const user = await person(app, email)
    await updateAccount(app.db, user.accountId, { plan })
    return { user, accountId: user.accountId, email, browser: signedInBrowser(await sessionCookie(app, user.id, user.accountId)) }
  }

  async function invite(from: Browser, email: string, role = 'editor'): Promise<Page> {
    const page = await from.get('/app/members')
    expect(page.status, page.html).toBe(200)
    return from.submit(page, { email, role }, { action: '/app/members/invite' })
  }

  /** The link of the newest invitation mailed to `email`. */
  async function linkTo(email: string): Promise<string> {
    const mail = await until(async () =>
      smtp
        .to(email)
        .filter((m) => m.data.includes('invites you'))
        .at(-1),
    )
    const url = /(https?:\/\/\S+\/join\?token=\S+)/.exec(mailText(mail))?.[1]
    expect(url).toBeTruthy()
    return new URL(url!).pathname + new URL(url!).search
  }

  async function codeFor(email: string, after: number): Promise<string> {
    const mail = await until(async () =>
      smtp
        .to(email)
        .slice(after)
        .find((m) => /sign-in code/.test(m.data)),
    )
    return /\b(\d{6})\b/.exec(mailText(mail))![1]!
  }

  /** The invitee's browser: opens the link, asks for a code, enters it. Answers the page after joining. */
  async function accept(link: string, email: string, browser = new Browser(base)): Promise<{ browser: Browser; page: Page }> {
    const opened = await browser.get(link)
    expect(opened.status, opened.html).toBe(200)
    const before = smtp.to(email).length
    const codeForm = await browser.submit(opened, {}, { action: '/join' })
    expect(codeForm.status, codeForm.html).toBe(200)
    const joined = await browser.submit(codeForm, { code: await codeFor(email, before) })
    return { browser, page: joined }
  }

  it('lets a new person join from the mailed link with a code, once, without an account of their own', async () => {
    const boss = await owner('pro')
    const sent = await invite(boss.browser, 'ada@example.com', 'editor')
    expect(sent.status).toBe(303)
    expect(sent.location).toBe('/app/members?done=invited')
    const link = await linkTo('ada@example.com')
    const mail = mailText(smtp.to('ada@example.com').at(-1)!)
    expect(mail).toContain(`${boss.email} invites you to join their account on Web Presence as an editor`)

    // Only the hash of the link's secret is kept.
    const secret = new URLSearchParams(link.split('?')[1]).get('token')!
    const stored = await app.db
      .selectFrom('account_invitations')
      .selectAll()
      .where('account_id', '=', boss.accountId)
      .executeTakeFirstOrThrow()
    expect(stored.secret_hash).toBe(sha256Hex(secret))
    expect(JSON.stringify(stored)).not.toContain(secret)
    expect(JSON.stringify(stored)).not.toContain('ada@example.com')

    const page = await new Browser(base).get(link)
    expect(page.$('main').text()).toContain(`${boss.email} invites you to join their account on Web Presence as an editor`)
    const accounts = Number(
      (
        await app.db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
    const { browser, page: joined } = await accept(link, 'ada@example.com')
    expect(joined.status).toBe(303)
    expect(joined.location).toBe('/app?done=joined')
    const dashboard = await browser.follow(joined)
    expect(dashboard.status).toBe(200)
    expect(dashboard.$('.who').text()).toBe('ada@example.com (editor)')
    expect(dashboard.$('.notice').text()).toContain('You joined the account')

    const ada = await app.db
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where('account_id', '=', boss.accountId)
      .where('id', '<>', boss.user.id)
      .executeTakeFirstOrThrow()
    expect((await membershipsOf(app.db, app.keyring, ada.id)).map((m) => [m.accountId, m.role])).toEqual([[boss.accountId, 'editor']])
    expect(
      Number(
        (
          await app.db
            .selectFrom('accounts')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(accounts)

    // The link works once.
    const again = await new Browser(base).get(link)
    expect(again.status).toBe(410)
    expect(again.$('h1').text()).toBe('This invitation has been used')
    const members = await boss.browser.get('/app/members')
    expect(members.$('table').first().text()).toContain('ada@example.com')
    expect(members.html).toContain('No invitations are pending.')
  })

  it('adds an existing person, who keeps their own account, and joins a signed-in invitee with one button', async () => {
    const boss = await owner('pro')
    const grace = await person(app, 'grace@example.com')
    await invite(boss.browser, 'grace@example.com', 'viewer')
    const { page } = await accept(await linkTo('grace@example.com'), 'grace@example.com')
    expect(page.location).toBe('/app?done=joined')
    expect((await membershipsOf(app.db, app.keyring, grace.id)).map((m) => [m.accountId, m.role])).toEqual([
      [grace.accountId, 'owner'],
      [boss.accountId, 'viewer'],
    ])

    // Signed in already with the invited address: one button, and the session moves to the account.
    const other = await owner('pro')
    await invite(other.browser, 'grace@example.com', 'editor')
    const link = await linkTo('grace@example.com')
    const browser = signedInBrowser(await sessionCookie(app, grace.id, grace.accountId))
    const opened = await browser.get(link)
    expect(opened.$('form').attr('action')).toBe('/join/accept')
    const joined = await browser.submit(opened)
    expect(joined.location).toBe('/app?done=joined')
    expect((await browser.follow(joined)).$('.who').text()).toBe('grace@example.com (editor)')

    // Signed in as someone else: told so, and offered the code for the invited address instead.
    const third = await owner('pro')
    await invite(third.browser, 'linus@example.com')
    const elsewhere = await browser.get(await linkTo('linus@example.com'))
    expect(elsewhere.$('main').text()).toContain('You are signed in as grace@example.com; this invitation is for linus@example.com')
    expect(elsewhere.$('form').attr('action')).toBe('/join')
  })

  it('explains an expired, a withdrawn and an unknown link', async () => {
    const boss = await owner('pro')
    await invite(boss.browser, 'late@example.com')
    const late = await linkTo('late@example.com')
    await app.db
      .updateTable('account_invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('account_id', '=', boss.accountId)
      .execute()
    const expired = await new Browser(base).get(late)
    expect(expired.status).toBe(410)
    expect(expired.$('h1').text()).toBe('This invitation has expired')
    expect(expired.$('main').text()).toContain('Invitation links work for 7 days')

    await invite(boss.browser, 'gone@example.com')
    const gone = await linkTo('gone@example.com')
    const members = await boss.browser.get('/app/members')
    expect(members.$('table').eq(1).text()).toContain('gone@example.com')
    const stale = new Browser(base)
    const opened = await stale.get(gone)
    const withdrawn = await boss.browser.submit(members, {}, { action: members.$('form[action$="/withdraw"]').attr('action')! })
    expect(withdrawn.location).toBe('/app/members?done=invitation-withdrawn')
    expect((await new Browser(base).get(gone)).$('h1').text()).toBe('This invitation was withdrawn')
    // A code asked for on a page opened before the withdrawal is refused too.
    const late2 = await stale.submit(opened, {}, { action: '/join' })
    expect(late2.status).toBe(410)

    const unknown = await new Browser(base).get(`/join?token=wpi_${'x'.repeat(43)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.$('h1').text()).toBe('This invitation link is not valid')
    expect((await new Browser(base).get('/join?token=nonsense')).status).toBe(404)
  })

  it('counts seats from the plan and extra_seat; a downgrade removes nobody but stops new invitations', async () => {
    const boss = await owner('plus')
    // plus includes 2 seats: the owner and one more; a pending invitation holds the second.
    expect((await invite(boss.browser, 'first@example.com')).status).toBe(303)
    const refused = await invite(boss.browser, 'second@example.com')
    expect(refused.status).toBe(403)
    // In the dashboard's words: the price list's names, no account id, no add-on id.
    expect(refused.$('.error').first().text()).toBe(
      'Your account is on plan Plus, which includes 2 seats, and has 1 member and 1 pending invitation; one more seat or plan Pro (5 seats) allows another.',
    )
    expect(refused.$('#invite-email').attr('value')).toBe('second@example.com')
    expect(smtp.to('second@example.com')).toHaveLength(0)

    await setAddOn(app.db, { accountId: boss.accountId, addOn: 'extra_seat', on: true, quantity: 1 })
    expect((await invite(boss.browser, 'second@example.com')).status).toBe(303)
    const members = await boss.browser.get('/app/members')
    expect(members.$('main').text()).toContain('3 of 3 seats taken (1 member, 2 pending)')
    await accept(await linkTo('first@example.com'), 'first@example.com')
    await accept(await linkTo('second@example.com'), 'second@example.com')

    // Down to lite (1 seat; extra_seat still booked): all three stay, no one more is invited.
    await updateAccount(app.db, boss.accountId, { plan: 'lite' })
    expect((await membershipsOf(app.db, app.keyring, boss.user.id))[0]!.role).toBe('owner')
    const afterDowngrade = await boss.browser.get('/app/members')
    expect(afterDowngrade.$('table').first().find('tbody tr')).toHaveLength(3)
    expect(afterDowngrade.$('main').text()).toContain('3 of 2 seats taken')
    const blocked = await invite(boss.browser, 'third@example.com')
    expect(blocked.status).toBe(403)
    expect(blocked.$('.error').first().text()).toContain('which includes 1 seat (with 1 extra seat: 2 in all), and has 3 members')
    expect(blocked.$('main').text()).not.toMatch(/acct_|extra_seat|plan lite/)
  })

  it('refuses to let an invitation accepted after a downgrade take a seat that is gone', async () => {
    const boss = await owner('pro')
    await invite(boss.browser, 'waiting@example.com')
    const link = await linkTo('waiting@example.com')
    await updateAccount(app.db, boss.accountId, { plan: 'lite' })
    const { page } = await accept(link, 'waiting@example.com')
    expect(page.status, page.html).toBe(403)
    expect(page.$('h1').text(), page.html).toBe('No seat is free')
    expect(
      await app.db.selectFrom('users').select('id').where('account_id', '=', boss.accountId).where('id', '<>', boss.user.id).execute(),
    ).toEqual([])
  })

  it('invites on /v1 for pro and above, lists and withdraws pending invitations, and refuses what cannot be', async () => {
    const boss = await owner('pro')
    const { secret } = await createApiToken(app.db, { accountId: boss.accountId, userId: boss.user.id, name: 'admin', scopes: API_SCOPES })
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })

    const created = await call('POST', '/account/members', { email: 'Api.Person@Example.com', role: 'viewer' })
    expect(created.status).toBe(201)
    const invitation = (await created.json()) as {
      id: string
      email: string
      role: string
      state: string
      invited_by: string
      expires_at: string
    }
    expect(invitation).toMatchObject({ email: 'api.person@example.com', role: 'viewer', state: 'pending', invited_by: boss.user.id })
    expect(new Date(invitation.expires_at).getTime() - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000)
    expect(created.headers.get('location')).toBe(`/v1/account/invitations/${invitation.id}`)
    expect(mailText(await until(async () => smtp.to('api.person@example.com')[0]))).toContain('/join?token=wpi_')
    expect((await call('GET', created.headers.get('location')!.slice(3))).status).toBe(200)
    const listed = (await (await call('GET', '/account/invitations')).json()) as { data: Array<{ id: string }>; meta: { total: number } }
    expect(listed.data.map((i) => i.id)).toEqual([invitation.id])

    const members = (await (await call('GET', '/account/members')).json()) as { data: Array<{ id: string; email: string; role: string }> }
    expect(members.data).toEqual([{ id: boss.user.id, email: boss.email, role: 'owner', created_at: expect.any(String) }])

    expect((await call('POST', '/account/members', { email: boss.email })).status).toBe(409)
    const bad = await call('POST', '/account/members', { email: 'not an address' })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { code: string }).code).toBe('validation_failed')
    expect((await call('POST', '/account/members', { email: 'x@example.com', role: 'admin' })).status).toBe(400)

    expect((await call('DELETE', `/account/invitations/${invitation.id}`)).status).toBe(204)
    expect((await call('DELETE', `/account/invitations/${invitation.id}`)).status).toBe(404)
    expect(((await (await call('GET', '/account/invitations')).json()) as { meta: { total: number } }).meta.total).toBe(0)

    // Another account's invitation is not found; plus reads members but cannot invite.
    const stranger = await owner('pro')
    const theirs = await fetch(`${base}/v1/account/members`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(await createApiToken(app.db, { accountId: stranger.accountId, userId: stranger.user.id, name: 'x', scopes: API_SCOPES })).secret}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: 'theirs@example.com' }),
    })
    const theirId = ((await theirs.json()) as { id: string }).id
    expect((await call('GET', `/account/invitations/${theirId}`)).status).toBe(404)
    expect((await call('DELETE', `/account/invitations/${theirId}`)).status).toBe(404)

    // Inviting one address again replaces the pending link; the sixth within the hour is refused.
    for (let i = 0; i < 5; i++) expect((await call('POST', '/account/members', { email: 'again@example.com' })).status).toBe(201)
    const pendingAgain = (await (await call('GET', '/account/invitations')).json()) as { data: Array<{ email: string }> }
    expect(pendingAgain.data.map((i) => i.email)).toEqual(['again@example.com'])
    const sixth = await call('POST', '/account/members', { email: 'again@example.com' })
    expect(sixth.status).toBe(429)
    expect(sixth.headers.get('retry-after')).toBe('3600')
    expect(((await sixth.json()) as { code: string }).code).toBe('rate_limited')

    await updateAccount(app.db, boss.accountId, { plan: 'plus' })
    const onPlus = await call('POST', '/account/members', { email: 'plus@example.com' })
    expect(onPlus.status).toBe(403)
    expect(((await onPlus.json()) as { code: string }).code).toBe('plan_required')
    expect((await call('GET', '/account/members')).status).toBe(200)
  })
})
