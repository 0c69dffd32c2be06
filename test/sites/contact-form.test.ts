import * as cheerio from 'cheerio'
import { Webhook } from 'standardwebhooks'
import { beforeAll, describe, expect, it } from 'vitest'
import { leadConsentFor } from '../../src/domain/leads/consent.ts'
import { listLeads } from '../../src/domain/leads/leads.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { FORM_MIN_AGE_MS } from '../../src/sites/form-token.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, FIXTURE_SETTINGS, SETUP_TIMEOUT_MS } from './helpers.ts'

const HOST = 'bakery.example'

/** A person reads the form and types before sending it: a post sooner than this after the page was served is refused. */
const readingTime = () => new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))

/** What a browser sends of a page's form: every field by name, a textarea's text as its value. */
function formFields(page: string, selector = 'form input, form textarea'): Record<string, string> {
  const $ = cheerio.load(page)
  return Object.fromEntries(
    $(selector)
      // An empty field is sent empty, as a browser sends it.
      .map((_, el) => [[$(el).attr('name')!, $(el).is('textarea') ? $(el).text() : (($(el).val() as string | undefined) ?? '')]])
      .get() as Array<[string, string]>,
  )
}

describe('contact forms on hosted pages', () => {
  let t: TestApp
  let site: Site
  let owner: TestAccount
  let fields: Record<string, string>
  // Each test posts from its own address, so the per-client limit is only met where it is tested.
  let client = '203.0.113.1'

  const post = (
    body: Record<string, string>,
    headers: Record<string, string> = { origin: `https://${HOST}` },
    url = '/_wps/forms/contact',
    host = HOST,
  ) =>
    t.app.inject({
      method: 'POST',
      url,
      remoteAddress: client,
      headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(body).toString(),
    })

  beforeAll(async () => {
    // Webhook receivers listen on loopback, which only OUTBOUND_ALLOW_PRIVATE_NETWORKS lets deliveries reach.
    t = await buildTestApp({ env: { BASE_URL: 'http://service.test', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
    owner = await makeAccount(t.app)
    site = await bakerySite(t.app, { accountId: owner.accountId, hostname: HOST })
    expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
    // What a browser sends: every field of the served form, hidden ones included.
    const page = await t.app.inject({ method: 'GET', url: '/contact', headers: { host: HOST } })
    const $ = cheerio.load(page.body)
    fields = formFields(page.body, 'form input[type=hidden]')
    expect($('form').attr('action')).toBe('_wps/forms/contact')
    await readingTime()
  }, SETUP_TIMEOUT_MS)

  const visitor = () => ({
    ...fields,
    name: 'Ada Visitor',
    email: 'ada@example.org',
    message: 'Two rye loaves for Saturday, please.',
    consent: 'yes',
  })

  it('turns a post from the site itself into a lead with the consent the form showed', async () => {
    const res = await post(visitor())
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    const $ = cheerio.load(res.body)
    expect($('h1').text()).toBe('Thank you')
    expect($('a').attr('href')).toBe('/contact')
    const leads = await listLeads(t.app.db, t.app.keyring, site.id)
    expect(leads).toHaveLength(1)
    const expected = leadConsentFor(FIXTURE_SETTINGS, 'en')
    expect(leads[0]).toMatchObject({
      source: 'contact_form',
      email: 'ada@example.org',
      name: 'Ada Visitor',
      note: 'Two rye loaves for Saturday, please.',
      sessionId: null,
      consent: { version: expected.version, digest: expected.digest, locale: 'en' },
    })
    // Stored sealed, never in clear.
    const raw = await t.app.db.selectFrom('leads').selectAll().where('site_id', '=', site.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(raw)).not.toContain('ada@example.org')
  })

  it('delivers the lead as a signed lead.received webhook with its personal data', async () => {
    client = '203.0.113.7'
    const receiver = await startReceiver()
    const hook = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...owner.headers, host: 'service.test' },
      payload: { url: receiver.url, event_types: ['lead.received'] },
    })
    expect(hook.statusCode, hook.body).toBe(201)
    const secret = (hook.json() as { secret: string }).secret
    const res = await post({
      ...visitor(),
      name: 'Wanda Webhook',
      email: 'wanda@example.org',
      message: 'Please call me back about a wedding cake.',
    })
    expect(res.statusCode).toBe(200)

    // The endpoint takes every lead.received of the account: an earlier test's lead whose fan-out
    // ran after the endpoint was made may arrive too. This test's delivery is the one naming its lead.
    const lead = (await listLeads(t.app.db, t.app.keyring, site.id)).find((l) => l.email === 'wanda@example.org')!
    type Payload = { type: string; timestamp: string; data: Record<string, unknown> }
    const verified = (r: (typeof receiver.requests)[number]) =>
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Payload
    const forLead = () => receiver.requests.filter((r) => verified(r).data['lead_id'] === lead.id)
    await expect.poll(() => forLead().length, { timeout: 15_000 }).toBe(1)
    const request = forLead()[0]
    const payload = verified(request!)
    expect(payload).toEqual({
      type: 'lead.received',
      timestamp: expect.any(String),
      data: {
        lead_id: lead.id,
        site_id: site.id,
        source: 'contact_form',
        email: 'wanda@example.org',
        name: 'Wanda Webhook',
        note: 'Please call me back about a wedding cake.',
        received_at: expect.any(String),
      },
    })
    expect(request!.headers['webhook-id']).toMatch(/^evt_/)
    // The event keeps the personal data sealed at rest.
    const event = await t.app.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', String(request!.headers['webhook-id']))
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(event)).not.toMatch(/wanda@example\.org|Wanda Webhook|wedding cake/)
    await new Promise((r) => setTimeout(r, 300))
    expect(forLead()).toHaveLength(1)
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/v1/webhooks/${(hook.json() as { id: string }).id}`,
          headers: { ...owner.headers, host: 'service.test' },
        })
      ).statusCode,
    ).toBe(204)
  })

  it('takes a post without Origin when the Referer names the site', async () => {
    const res = await post({ ...visitor(), email: 'bob@example.org' }, { referer: `https://${HOST}/contact` })
    expect(res.statusCode).toBe(200)
  })

  it('takes what the browser vouches for in Sec-Fetch-Site, whatever Origin it sends, and says its origin to its own forms', async () => {
    client = '203.0.113.8'
    // A page served with `Referrer-Policy: no-referrer` makes the browser send Origin: null even for its own form.
    expect((await post({ ...visitor(), email: 'nell@example.org' }, { origin: 'null', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(
      200,
    )
    for (const site of ['cross-site', 'same-site', 'none']) {
      expect((await post(visitor(), { origin: `https://${HOST}`, 'sec-fetch-site': site })).statusCode, site).toBe(403)
    }
    const page = await t.app.inject({ method: 'GET', url: '/contact', headers: { host: HOST } })
    expect(page.headers['referrer-policy']).toBe('same-origin')
  })

  it('refuses cross-site posts and forged tokens', async () => {
    client = '203.0.113.2'
    for (const headers of [{ origin: 'https://evil.example' }, { referer: 'https://evil.example/page' }, {}, { origin: 'null' }] as Array<
      Record<string, string>
    >) {
      const res = await post(visitor(), headers)
      expect(res.statusCode, JSON.stringify(headers)).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    }
    expect((await post({ ...visitor(), token: 'v1.nope.nope' })).statusCode).toBe(403)
    // A token made for another site does not open this one's form.
    const other = await bakerySite(t.app, { accountId: (await makeAccount(t.app)).accountId, hostname: 'other.example' })
    expect((await buildSite(t.app, other.id)).status).toBe('succeeded')
    const otherToken = cheerio
      .load((await t.app.inject({ method: 'GET', url: '/contact', headers: { host: 'other.example' } })).body)('input[name=token]')
      .val() as string
    expect((await post({ ...visitor(), token: otherToken })).statusCode).toBe(403)
  })

  it('refuses a post without consent, with a stale consent digest, or with bad fields', async () => {
    client = '203.0.113.3'
    const { consent: _, ...noConsent } = visitor()
    expect((await post(noConsent)).statusCode).toBe(400)
    expect((await post({ ...visitor(), consent_digest: 'b'.repeat(64) })).statusCode).toBe(409)
    expect((await post({ ...visitor(), email: 'not-an-email' })).statusCode).toBe(400)
    expect((await post({ ...visitor(), locale: 'fr' })).statusCode).toBe(400)
    expect((await post({ ...visitor(), extra: 'x' })).statusCode).toBe(400)
    const bad = await post({ ...visitor(), message: 'x'.repeat(5001) })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).not.toMatch(/ajv|instancePath|stack/i)
    expect(await listLeads(t.app.db, t.app.keyring, site.id)).toHaveLength(4)
  })

  it('shows a browser the form again with what the visitor typed and each problem above its field', async () => {
    client = '203.0.113.10'
    const asPage = { origin: `https://${HOST}`, accept: 'text/html,application/xhtml+xml' }
    const before = (await listLeads(t.app.db, t.app.keyring, site.id)).length
    const typed = { ...visitor(), name: 'Dora <Dough>', email: 'dora-at-example', message: 'x'.repeat(5001) }
    const res = await post(typed, asPage)
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    const $ = cheerio.load(res.body)
    expect($('h1').text()).toBe('Your message was not sent')
    const error = (name: string) => $(`#${$(`[name=${name}]`).attr('aria-describedby')}`).text()
    expect(error('email')).toBe('Enter your email address, like name@example.com.')
    expect(error('message')).toBe('Use at most 5000 characters.')
    expect($('[name=name]').attr('aria-invalid')).toBeUndefined()
    expect($('[name=name]').val()).toBe('Dora <Dough>')
    expect($('[name=email]').val()).toBe('dora-at-example')
    expect($('textarea[name=message]').text()).toBe('x'.repeat(5001))
    expect($('[name=consent]').attr('checked')).toBeDefined()
    expect(res.body).not.toContain('<Dough>')
    expect(res.body).not.toMatch(/instancePath|ajv|problem-type/)

    // Mended and sent again from that page, as the browser would: every field of its form.
    const again = (page: string, changes: Record<string, string>) =>
      post({ ...formFields(page), ...changes }, { ...asPage, referer: `https://${HOST}/_wps/forms/contact` })
    await readingTime()
    const sent = await again(res.body, { email: 'dora@example.org', message: 'Short now.' })
    expect(sent.statusCode).toBe(200)
    expect(cheerio.load(sent.body)('h1').text()).toBe('Thank you')
    const leads = await listLeads(t.app.db, t.app.keyring, site.id)
    expect(leads).toHaveLength(before + 1)
    expect(leads.find((l) => l.email === 'dora@example.org')).toMatchObject({ name: 'Dora <Dough>', note: 'Short now.' })

    // No consent: said at the box, the message kept.
    const { consent: _, ...unticked } = visitor()
    const noConsent = cheerio.load((await post({ ...unticked, message: 'Keep me' }, asPage)).body)
    expect(noConsent(`#${noConsent('[name=consent]').attr('aria-describedby')}`).text()).toBe(
      'Tick the box to agree, so that we may answer you.',
    )
    expect(noConsent('textarea[name=message]').text()).toBe('Keep me')
  })

  it('shows a browser a stale or foreign form again, in its language, with a form that sends', async () => {
    client = '203.0.113.11'
    const asPage = { origin: `https://${HOST}`, accept: 'text/html' }
    const stale = await post(
      { ...visitor(), locale: 'de', page: '/about', email: 'dieter@example.org', consent_digest: 'b'.repeat(64) },
      asPage,
    )
    expect(stale.statusCode).toBe(409)
    const $stale = cheerio.load(stale.body)
    expect($stale('html').attr('lang')).toBe('de')
    expect($stale('[role=alert]').text()).toMatch(/^Der Einwilligungstext hat sich geändert/)
    expect($stale('[name=consent_digest]').val()).toBe(leadConsentFor(FIXTURE_SETTINGS, 'de').digest)
    expect($stale('[name=email]').val()).toBe('dieter@example.org')
    expect($stale('main > p > a').last().attr('href')).toBe('/de/about')
    // A language the site does not speak: the page and every word of it in the site's own.
    const french = cheerio.load((await post({ ...visitor(), locale: 'fr', email: 'nope' }, asPage)).body)
    expect(french('html').attr('lang')).toBe('en')
    expect(french(`#${french('[name=email]').attr('aria-describedby')}`).text()).toBe('Enter your email address, like name@example.com.')
    const forged = await post({ ...visitor(), token: 'v1.nope.nope', email: 'frieda@example.org' }, asPage)
    expect(forged.statusCode).toBe(403)
    await readingTime()
    expect((await post(formFields(forged.body), asPage)).statusCode).toBe(200)
    expect((await listLeads(t.app.db, t.app.keyring, site.id)).some((l) => l.email === 'frieda@example.org')).toBe(true)
  })

  it('is answered under the preview prefix too, and not on a host without a live site', async () => {
    client = '203.0.113.4'
    const preview = await post(
      { ...visitor(), email: 'carol@example.org' },
      { origin: 'http://service.test' },
      `/s/${site.id}/_wps/forms/contact`,
      'service.test',
    )
    expect(preview.statusCode).toBe(200)
    expect(cheerio.load(preview.body)('a').attr('href')).toBe(`/s/${site.id}/contact`)
    expect((await post(visitor(), { origin: 'https://unknown.example' }, '/_wps/forms/contact', 'unknown.example')).statusCode).toBe(404)
  })

  it('keeps every new message of a returning visitor, and one lead for a form sent twice', async () => {
    client = '203.0.113.9'
    const mine = async () =>
      (await listLeads(t.app.db, t.app.keyring, site.id))
        .filter((l) => l.email.toLowerCase() === 'carla@example.org')
        .map((l) => l.note)
        .sort()
    const first = { ...visitor(), email: 'carla@example.org', message: 'First message: do you deliver?' }
    expect((await post(first)).statusCode).toBe(200)
    expect((await post(first)).statusCode).toBe(200)
    expect(await mine()).toEqual(['First message: do you deliver?'])
    expect((await post({ ...first, email: 'Carla@example.org', message: 'Second message: and on Sundays?' })).statusCode).toBe(200)
    expect(await mine()).toEqual(['First message: do you deliver?', 'Second message: and on Sundays?'])
  })

  it('is rate limited per client', async () => {
    client = '203.0.113.5'
    let last = 0
    for (let i = 0; i < 12 && last !== 429; i++) last = (await post({ ...visitor(), email: `n${i}@example.org` })).statusCode
    expect(last).toBe(429)
    client = '203.0.113.6'
    expect((await post({ ...visitor(), email: 'late@example.org' })).statusCode).toBe(200)
  })
})
