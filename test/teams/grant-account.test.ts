import * as oauth from 'oauth4webapi'
import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { addMember, removeMember } from '../../src/domain/accounts/members.ts'
import { Browser, insecure, json, registeredClient, startLiveApp, type Page } from '../identity/helpers.ts'
import { accessibilityChecker } from '../helpers/accessibility.ts'
import { haveBrowser, launchBrowser, PHONE, screenshotPath } from '../helpers/browser.ts'
import { person } from './helpers.ts'

// A person who belongs to several accounts says which one an application or an agent acts for:
// the consent page and the claim's verification page offer each, the one the browser works in
// chosen already; tokens, their refreshes and a claimed agent act for the one picked, and stop
// once the person leaves it.
const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
const redirectUri = 'http://127.0.0.1:9/callback'
const { as, client } = await registeredClient(base, 'Team Helper', redirectUri)

/** A person signed in through the pages, who also edits the team account of `owner`. */
async function teamEditor(name: string) {
  const browser = new Browser(base)
  await browser.signIn(app, `${name}@example.com`, await browser.get('/signin'))
  const self = await person(app, `${name}@example.com`)
  const owner = await person(app, `${name}-owner@example.com`)
  await addMember(app.db, owner.accountId, self.id, 'editor')
  return { browser, self, own: self.accountId, team: owner.accountId }
}

async function authorize(browser: Browser) {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint as string)
  const query = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: 'mcp:read mcp:tools',
    state,
  }
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
  return { verifier, state, consent: await browser.get(url.pathname + url.search) }
}

async function redeem(answer: Page, started: { verifier: string; state: string }) {
  expect(answer.status).toBe(303)
  const params = oauth.validateAuthResponse(as, client, new URL(answer.location!), started.state)
  return oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, started.verifier, insecure),
  )
}

const accountOf = (accessToken: string) => decodeJwt(accessToken)['account_id']
const options = (page: Page) =>
  page
    .$('select#account_id option')
    .map((_i, el) => ({ value: page.$(el).attr('value'), selected: page.$(el).attr('selected') !== undefined }))
    .get()

describe('the account an application or an agent acts for', () => {
  it('offers every account on the consent page, the one the browser works in chosen; the tokens and their refreshes act for the one picked', async () => {
    const { browser, own, team } = await teamEditor('consent')
    const first = await authorize(browser)
    expect(first.consent.status).toBe(200)
    expect(first.consent.$('label[for=account_id]').text()).toBe('For which account?')
    expect(options(first.consent)).toEqual([
      { value: own, selected: true },
      { value: team, selected: false },
    ])
    expect(first.consent.$('select#account_id option').eq(1).text()).toBe('the account of consent-owner@example.com (you are an editor)')

    // Working in the team account in the dashboard makes it the one chosen.
    const accounts = await browser.get('/app/accounts')
    expect((await browser.submit(accounts, {}, { action: '/app/accounts/switch' })).location).toBe('/app?done=switched')
    const second = await authorize(browser)
    expect(options(second.consent)).toEqual([
      { value: own, selected: false },
      { value: team, selected: true },
    ])
    const tokens = await redeem(await browser.submit(second.consent, {}, { button: ['decision', 'allow'] }), second)
    expect(accountOf(tokens.access_token)).toBe(team)
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    )
    expect(accountOf(refreshed.access_token)).toBe(team)

    // Picking the other account in the form is honoured.
    const third = await authorize(browser)
    const mine = await redeem(await browser.submit(third.consent, { account_id: own }, { button: ['decision', 'allow'] }), third)
    expect(accountOf(mine.access_token)).toBe(own)

    // Leaving the team ends its grant at the next refresh; the own account's grant goes on.
    await removeMember(app.db, team, (await person(app, 'consent@example.com')).id)
    const refused = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure)
    expect(refused.status).toBe(400)
    expect(await json(refused)).toMatchObject({ error: 'invalid_grant' })
    const still = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), mine.refresh_token!, insecure),
    )
    expect(accountOf(still.access_token)).toBe(own)
  })

  it('refuses an account the person does not belong to, issuing no code', async () => {
    const { browser } = await teamEditor('tamper')
    const stranger = await person(app, 'tamper-stranger@example.com')
    const started = await authorize(browser)
    const codesBefore = await app.db
      .selectFrom('authorization_codes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    const refused = await browser.submit(started.consent, { account_id: stranger.accountId }, { button: ['decision', 'allow'] })
    expect(refused.status).toBe(400)
    expect(refused.$('p').first().text()).toBe('You are not a member of the account chosen.')
    // An id that cannot be one, and one longer than the field allows: refused the same way, never a 500.
    for (const accountId of ['acct_nobody', 'x'.repeat(101)]) {
      const bad = await browser.submit(started.consent, { account_id: accountId }, { button: ['decision', 'allow'] })
      expect(bad.status, accountId).toBe(400)
      expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8')
    }
    const codesAfter = await app.db
      .selectFrom('authorization_codes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    expect(codesAfter.n).toBe(codesBefore.n)
  })

  it('names the only account of a person who has one, with no choice to make', async () => {
    const browser = new Browser(base)
    await browser.signIn(app, 'single@example.com', await browser.get('/signin'))
    const { consent } = await authorize(browser)
    expect(consent.$('select').length).toBe(0)
    expect(consent.html).toContain('For the account of single@example.com (you are an owner).')
  })

  it.runIf(haveBrowser)('fits the choice on a phone, without JavaScript, and axe finds nothing serious', async () => {
    const { browser, team } = await teamEditor('phone-with-a-rather-long-address')
    const { consent } = await authorize(browser)
    expect(consent.status).toBe(200)
    // The same authorization request, opened in Chromium with the person's cookies.
    const fields = consent
      .$('form input[type=hidden]')
      .map((_i, el) => [[consent.$(el).attr('name')!, consent.$(el).attr('value') ?? '']])
      .get() as Array<[string, string]>
    const query = new URLSearchParams(fields.filter(([name]) => name !== '_csrf'))
    const chromium = await launchBrowser()
    const context = await chromium.newContext({ viewport: PHONE, javaScriptEnabled: false })
    await context.addCookies(browser.cookieList())
    const page = await context.newPage()
    await page.goto(`${base}/oauth/authorize?${query}`)
    await page.selectOption('#account_id', team)
    await page.screenshot({ path: screenshotPath('consent-account-choice-phone'), fullPage: true })
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width)
    expect(await page.locator('#account_id').isVisible()).toBe(true)
    const axe = await accessibilityChecker(chromium, base)
    await axe.check('consent page with an account choice', page)
    expect(axe.findings).toEqual([])
  })

  it('lets the person who claims an agent pick the account it acts for', async () => {
    const { browser, own, team } = await teamEditor('claimer')
    const registered = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'anonymous' }),
    })
    const reg = (await json(registered)) as { registration_id: string; claim_token: string }
    const claim = await fetch(`${base}/agent/identity/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_token: reg.claim_token, email: 'claimer@example.com' }),
    })
    const { claim_attempt: attempt } = (await json(claim)) as { claim_attempt: { user_code: string } }

    const confirm = await browser.get(`/agent/identity/verify?user_code=${attempt.user_code}`)
    expect(options(confirm)).toEqual([
      { value: own, selected: true },
      { value: team, selected: false },
    ])
    const stranger = await person(app, 'claimer-stranger@example.com')
    expect((await browser.submit(confirm, { account_id: stranger.accountId }, { button: ['decision', 'approve'] })).status).toBe(403)
    expect((await browser.submit(confirm, { account_id: 'x'.repeat(101) }, { button: ['decision', 'approve'] })).status).toBe(400)
    const done = await browser.submit(confirm, { account_id: team }, { button: ['decision', 'approve'] })
    expect(done.$('p').first().text()).toBe(
      'The agent is now connected to the account of claimer-owner@example.com. You can close this page and return to it.',
    )

    const agent: oauth.Client = { client_id: reg.registration_id, token_endpoint_auth_method: 'none' }
    const response = await oauth.genericTokenEndpointRequest(
      as,
      agent,
      oauth.None(),
      'urn:presence:agent-auth:grant-type:claim',
      { claim_token: reg.claim_token },
      insecure,
    )
    const tokens = await oauth.processGenericTokenEndpointResponse(as, agent, response)
    expect(accountOf(tokens.access_token)).toBe(team)
    expect(decodeJwt(tokens['identity_assertion'] as string)['account_id']).toBe(team)
    const registration = await app.db
      .selectFrom('agent_registrations')
      .select(['account_id', 'user_id'])
      .where('id', '=', reg.registration_id)
      .executeTakeFirstOrThrow()
    expect(registration.account_id).toBe(team)
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      agent,
      await oauth.refreshTokenGrantRequest(as, agent, oauth.None(), tokens.refresh_token!, insecure),
    )
    expect(accountOf(refreshed.access_token)).toBe(team)
  })
})
