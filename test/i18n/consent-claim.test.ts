import * as oauth from 'oauth4webapi'
import { describe, expect, it } from 'vitest'
import { Browser, json, registeredClient, startLiveApp } from '../identity/helpers.ts'
import { expectNoEnglish } from './helpers.ts'

// The OAuth consent page and the agent claim's verification page in German and French, over
// real HTTP in a browser without JavaScript that asks for its language with Accept-Language.
describe('the consent and claim pages in German and French', async () => {
  const { app, base } = await startLiveApp({ env: { RATE_LIMIT_FACTOR: '10' } })
  const redirectUri = 'http://127.0.0.1:9/callback'
  const { as, client } = await registeredClient(base, 'Kassenbuch', redirectUri)

  it('asks for consent in German, and explains an unknown application in French', async () => {
    const browser = new Browser(base, { headers: { 'accept-language': 'de-DE' } })
    await browser.signIn(app, 'zustimmung@example.de', await browser.get('/signin'))
    const url = new URL(as.authorization_endpoint as string)
    const query = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
      scope: 'mcp:read mcp:tools',
      state: 'x',
    }
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
    const consent = await browser.get(url.pathname + url.search)
    expect(consent.status, consent.html).toBe(200)
    expect(consent.$('html').attr('lang')).toBe('de')
    expect(consent.$('h1').text()).toBe('Zugriff erlauben?')
    expect(consent.$('main').text()).toContain('Kassenbuch möchte:')
    expect(consent.$('main li').first().text()).toBe('Ihre Websites, Seiten und Anfragen über den MCP-Server lesen (mcp:read)')
    expect(consent.$('main').text()).toContain('Für das Konto von zustimmung@example.de (Sie sind Inhaber).')
    expect(consent.$('button[value=allow]').text()).toBe('Erlauben')
    expectNoEnglish(consent.$('body').text(), 'consent.')

    const french = new Browser(base, { headers: { 'accept-language': 'fr' } })
    const unknown = await french.get('/oauth/authorize?client_id=inconnu&response_type=code')
    expect(unknown.status).toBe(400)
    expect(unknown.$('h1').text()).toBe('Impossible de continuer')
    expect(unknown.$('main').text()).toContain('L’application qui vous a envoyé ici n’est pas enregistrée.')
    expectNoEnglish(unknown.$('body').text(), 'consent.')
  })

  it('runs the claim of an agent in French, a wrong code refused in French', async () => {
    const registered = await fetch(`${base}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'anonymous' }),
    })
    const reg = (await json(registered)) as { claim_token: string }
    const started = await fetch(`${base}/agent/identity/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ claim_token: reg.claim_token, email: 'agence@example.fr' }),
    })
    const { claim_attempt: attempt } = (await json(started)) as { claim_attempt: { user_code: string; verification_uri: string } }

    const person = new Browser(base, { headers: { 'accept-language': 'fr-FR' } })
    const entry = await person.get(new URL(attempt.verification_uri).pathname)
    expect(entry.$('h1').text()).toBe('Connecter un agent')
    expect(entry.$('main').text()).toContain('Saisissez le code qu’il vous a affiché.')
    expectNoEnglish(entry.$('body').text(), 'claim.')
    const wrong = await person.submit(entry, { user_code: 'BBBB-BBBB' })
    expect(wrong.status).toBe(400)
    expect(wrong.$('.error').text()).toBe('Ce code est inconnu. Vérifiez-le et réessayez.')

    const afterCode = await person.submit(entry, { user_code: attempt.user_code })
    const confirm = await person.signIn(app, 'agence@example.fr', afterCode)
    expect(confirm.status, confirm.html).toBe(200)
    expect(confirm.$('h1').text()).toBe('Connecter cet agent ?')
    expect(confirm.$('main').text()).toContain(`avec le code ${attempt.user_code}. Il pourra :`)
    expect(confirm.$('button[value=approve]').text()).toBe('Connecter l’agent')
    expectNoEnglish(confirm.$('body').text(), 'claim.', 'consent.')

    const done = await person.submit(confirm, {}, { button: ['decision', 'approve'] })
    expect(done.status).toBe(200)
    expect(done.$('h1').text()).toBe('Agent connecté')
    expect(done.$('main').text()).toContain('L’agent est maintenant connecté au compte de agence@example.fr.')
    expectNoEnglish(done.$('body').text(), 'claim.')
  })
})
