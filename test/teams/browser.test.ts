import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { DESKTOP, haveBrowser, launchBrowser } from '../helpers/browser.ts'
import { onPostgres } from '../helpers/database.ts'
import { mailText, startSmtpServer } from '../helpers/smtp.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { until } from '../helpers/polling.ts'
import { person } from './helpers.ts'

// A team in Chromium with JavaScript off: the owner signs in with the mailed code and invites a
// colleague from Members; the colleague opens the link from the mail the SMTP server caught,
// joins with the code, edits a page, and is not offered Members nor let in. axe-core checks
// every page as it was shown, and nothing is wider than a phone.
describe.skipIf(!haveBrowser || onPostgres)('a team in Chromium without JavaScript', { timeout: 120_000 }, async () => {
  const smtp = await startSmtpServer()
  const { app, base } = await startLiveApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Web Presence <team@presence.test>' } })
  const browser = await launchBrowser()
  const ownerPage = await (await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false })).newPage()
  const colleaguePage = await (await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false })).newPage()
  const { check: accessible, findings, checked } = await accessibilityChecker(browser, base)

  /** The newest mail to `to` whose text matches, once the SMTP server has it. */
  async function mailTo(to: string, match: RegExp, after = 0): Promise<string> {
    const mail = await until(
      async () =>
        smtp
          .to(to)
          .slice(after)
          .map(mailText)
          .find((text) => match.test(text)),
      20_000,
      `a mail to ${to}`,
    )
    return mail
  }

  const owner = await person(app, 'baker@example.com')
  await updateAccount(app.db, owner.accountId, { plan: 'pro' })
  const site = await createAccountSite(app.db, owner.accountId, { name: 'Harbour Bakery' })
  const home = await createPage(app.db, site, { path: '/', title: 'Fresh from the harbour' })

  it('the owner signs in with the mailed code and invites a colleague as an editor', async () => {
    await ownerPage.goto(`${base}/signin?return_to=%2Fapp`)
    await ownerPage.locator('#email').fill('baker@example.com')
    await ownerPage.getByRole('button', { name: 'Send code' }).click()
    const code = /(\d{6})/.exec(await mailTo('baker@example.com', /sign-in code/))![1]!
    await ownerPage.locator('#code').fill(code)
    await ownerPage.getByRole('button', { name: 'Sign in' }).click()
    await ownerPage.waitForURL(`${base}/app`)

    await ownerPage.getByRole('link', { name: 'Team' }).click()
    expect(await ownerPage.getByRole('heading', { level: 1 }).textContent()).toBe('Members')
    expect(await ownerPage.locator('main').textContent()).toContain('1 of 5 seats taken')
    await accessible('members', ownerPage)
    await ownerPage.getByLabel('Email address').fill('assistant@example.com')
    await ownerPage.getByLabel('Role', { exact: true }).selectOption('editor')
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click()
    expect(await ownerPage.locator('.notice').textContent()).toContain('The invitation was mailed')
    expect(await ownerPage.getByRole('region', { name: 'Pending invitations' }).textContent()).toContain('assistant@example.com')
    await accessible('members with a pending invitation', ownerPage)

    // A second invitation to a member is refused on the form, which keeps what was typed.
    await ownerPage.getByLabel('Email address').fill('baker@example.com')
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click()
    expect(await ownerPage.locator('.error').first().textContent()).toContain('baker@example.com is a member of this account already')
    expect(await ownerPage.getByLabel('Email address').inputValue()).toBe('baker@example.com')
    await accessible('members refused', ownerPage)
  })

  it('the colleague joins from the mailed link with a code, edits a page, and cannot open Members', async () => {
    const invitation = await mailTo('assistant@example.com', /invites you/)
    expect(invitation).toContain('baker@example.com invites you to join their account on Web Presence as an editor')
    const link = /(http:\/\/\S+\/join\?token=\S+)/.exec(invitation)![1]!
    await colleaguePage.goto(link)
    expect(await colleaguePage.getByRole('heading', { level: 1 }).textContent()).toBe('Join an account')
    await accessible('invitation', colleaguePage)
    const before = smtp.to('assistant@example.com').length
    await colleaguePage.getByRole('button', { name: 'Send me a code' }).click()
    await accessible('invitation code', colleaguePage)
    const code = /(\d{6})/.exec(await mailTo('assistant@example.com', /sign-in code/, before))![1]!
    await colleaguePage.getByLabel('Code').fill(code)
    await colleaguePage.getByRole('button', { name: 'Join the account' }).click()
    await colleaguePage.waitForURL(`${base}/app?done=joined`)
    expect(await colleaguePage.locator('.notice').textContent()).toContain('You joined the account')
    expect(await colleaguePage.locator('.who').textContent()).toBe('assistant@example.com (editor)')
    await accessible('joined', colleaguePage)

    // Editing a page of the owner's site.
    await colleaguePage.getByRole('link', { name: 'Sites', exact: true }).click()
    await colleaguePage.getByRole('link', { name: 'Harbour Bakery', exact: true }).click()
    await colleaguePage.getByRole('link', { name: 'Fresh from the harbour' }).click()
    await colleaguePage.getByLabel('Title').fill('Fresh every morning')
    await colleaguePage.getByRole('button', { name: 'Save page details' }).click()
    expect(await colleaguePage.locator('.notice').textContent()).toContain('The page was saved')
    await accessible('page edited by the editor', colleaguePage)
    expect((await app.db.selectFrom('pages').select('title').where('id', '=', home.id).executeTakeFirstOrThrow()).title).toBe(
      'Fresh every morning',
    )

    // No Members in the navigation, and the address refused.
    const nav = colleaguePage.getByRole('navigation', { name: 'Dashboard sections' })
    expect(await nav.getByRole('link', { name: 'Team' }).count()).toBe(0)
    expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0)
    const refused = await colleaguePage.goto(`${base}/app/members`)
    expect(refused!.status()).toBe(403)
    expect(await colleaguePage.getByRole('heading', { level: 1 }).textContent()).toBe('Not allowed')
    expect(await colleaguePage.locator('.error').textContent()).toContain('You are an editor of this account; only an owner can do this.')
    await accessible('members refused to the editor', colleaguePage)
  })

  it('the owner sees the colleague as a member and what they did in the audit log', async () => {
    await ownerPage.goto(`${base}/app/members`)
    const members = await ownerPage.getByRole('region', { name: 'Members of this account' }).textContent()
    expect(members).toContain('assistant@example.com')
    expect(await ownerPage.getByLabel('Role of assistant@example.com').inputValue()).toBe('editor')
    expect(await ownerPage.locator('main').textContent()).toContain('No invitations are pending.')
    await ownerPage.getByRole('link', { name: 'Audit log' }).click()
    await ownerPage.getByLabel('Member').selectOption({ label: 'assistant@example.com' })
    await ownerPage.getByRole('button', { name: 'Filter' }).click()
    const log = await ownerPage.getByRole('region', { name: 'Audit records, newest first' }).textContent()
    expect(log).toContain('dashboard.pages.update')
    expect(log).not.toContain('dashboard.members.invite')
    await accessible('audit log by member', ownerPage)
    expect(checked.length).toBeGreaterThanOrEqual(9)
    expect(findings).toEqual([])
  })
})
