import * as cheerio from 'cheerio'
import { request } from 'undici'
import { beforeAll, describe, expect, it } from 'vitest'
import { insertLead, listLeads } from '../../src/domain/leads/leads.ts'
import type { Site } from '../../src/domain/sites/sites.ts'
import { MESSAGES_PER_HOUR } from '../../src/sites/contact-form.ts'
import { FORM_MAX_AGE_MS, FORM_MIN_AGE_MS, signFormToken } from '../../src/sites/form-token.ts'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { makeAccount } from '../rest/helpers.ts'
import { bakerySite, buildSite, SETUP_TIMEOUT_MS } from '../sites/helpers.ts'

/**
 * Contact-form spam: a token stamped with the time its page was served (a post sooner than 2 s
 * after, or after it expired, gets the form back), a honeypot field, and a cap per site and hour
 * (429 with the form shown again). A person's text is never lost.
 */
const HOST = 'spam.example'
let t: TestApp
let site: Site
let base: string

const hiddenFields = (page: string) => {
  const $ = cheerio.load(page)
  return Object.fromEntries(
    $('form input[type=hidden]')
      .map((_, el) => [[$(el).attr('name')!, $(el).val() as string]])
      .get(),
  ) as Record<string, string>
}

/** An HTTP request to the listening service, naming the site's host (fetch would name the address's). */
async function call(path: string, host: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}) {
  const res = await request(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { host, ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  })
  const header = (name: string) => {
    const value = res.headers[name]
    return value === undefined ? null : String(value)
  }
  return { status: res.statusCode, headers: { get: header }, text: () => res.body.text() }
}

const sendTo = (host: string, fields: Record<string, string>) =>
  call('/_wps/forms/contact', host, {
    method: 'POST',
    headers: { origin: `https://${host}`, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
const send = (fields: Record<string, string>) => sendTo(HOST, fields)

const contactPage = () => call('/contact', HOST)

const visitor = (email: string) => ({ name: 'Ada', email, message: `A cake for ${email}, please`, consent: 'yes' })

beforeAll(async () => {
  t = await buildTestApp({ env: { BASE_URL: 'http://service.test' } })
  const owner = await makeAccount(t.app)
  site = await bakerySite(t.app, { accountId: owner.accountId, hostname: HOST })
  expect((await buildSite(t.app, site.id)).status).toBe('succeeded')
  base = await t.app.listen({ port: 0, host: '127.0.0.1' })
}, SETUP_TIMEOUT_MS)

describe('the form token is stamped when the page is served', () => {
  it('differs on every answer, which no cache keeps', async () => {
    const [one, two] = [await contactPage(), await contactPage()]
    expect(one.status).toBe(200)
    expect(one.headers.get('cache-control')).toBe('no-store')
    expect(one.headers.get('etag')).toBeNull()
    const [a, b] = [hiddenFields(await one.text()).token, hiddenFields(await two.text()).token]
    expect(a).toMatch(/^v1\./)
    expect(a).not.toBe(b)
    // Pages without a form stay precompressed and cacheable.
    const home = await call('/', HOST, { headers: { 'accept-encoding': 'br' } })
    expect(home.headers.get('etag')).toBeTruthy()
  })

  it('refuses a post sooner than 2 s after the page was served, showing the form again with the text kept', async () => {
    const fields = hiddenFields(await (await contactPage()).text())
    const quick = await send({ ...fields, ...visitor('quick@example.org') })
    expect(quick.status).toBe(422)
    const $ = cheerio.load(await quick.text())
    expect($('[role=alert]').text()).toMatch(/very quick/)
    expect($('textarea[name=message]').text()).toBe('A cake for quick@example.org, please')
    expect($('[name=email]').val()).toBe('quick@example.org')
    // After a moment the same person's second send from that page goes through.
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))
    const again = await send(
      Object.fromEntries(
        $('form input, form textarea')
          .map((_, el) => [[$(el).attr('name')!, $(el).is('textarea') ? $(el).text() : (($(el).val() as string | undefined) ?? '')]])
          .get(),
      ),
    )
    expect(again.status).toBe(200)
    expect((await listLeads(t.app.db, t.app.keyring, site.id)).some((l) => l.email === 'quick@example.org')).toBe(true)
  })

  it('refuses an expired token (the form again, with a fresh token), and a forged one', async () => {
    const fields = hiddenFields(await (await contactPage()).text())
    const old = signFormToken(t.app.keyring, site.id, Date.now() - FORM_MAX_AGE_MS - 60_000)
    const expired = await send({ ...fields, token: old, ...visitor('late@example.org') })
    expect(expired.status).toBe(403)
    const $ = cheerio.load(await expired.text())
    expect($('textarea[name=message]').text()).toBe('A cake for late@example.org, please')
    expect($('[name=token]').val()).not.toBe(old)
    const forged = await send({ ...fields, token: `${old.slice(0, -4)}AAAA`, ...visitor('forged@example.org') })
    expect(forged.status).toBe(403)
  })
})

describe('the honeypot', () => {
  it('is hidden from people, and a post that fills it in is answered like any other but kept nowhere', async () => {
    const page = await (await contactPage()).text()
    const $ = cheerio.load(page)
    const trap = $('input[name=website]')
    expect(trap.length).toBe(1)
    expect(trap.parent().attr('style')).toBe('display:none')
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))
    const res = await send({ ...hiddenFields(page), ...visitor('bot@example.org'), website: 'https://spam.example/buy' })
    expect(res.status).toBe(200)
    expect(
      cheerio
        .load(await res.text())('h1')
        .text(),
    ).toBe('Thank you')
    expect((await listLeads(t.app.db, t.app.keyring, site.id)).some((l) => l.email === 'bot@example.org')).toBe(false)
  })
})

describe('the per-site cap', () => {
  it(`takes ${MESSAGES_PER_HOUR} messages an hour, then answers 429 with the form and the text, Retry-After set`, async () => {
    const own = await bakerySite(t.app, { accountId: (await makeAccount(t.app)).accountId, hostname: 'capped.example' })
    expect((await buildSite(t.app, own.id)).status).toBe('succeeded')
    for (let i = 0; i < MESSAGES_PER_HOUR; i++) {
      await insertLead(t.app.db, t.app.keyring, {
        siteId: own.id,
        sessionId: null,
        source: 'contact_form',
        email: `earlier-${i}@example.org`,
        consent: { version: '1', locale: 'en', digest: 'd'.repeat(64), acceptedAt: new Date() },
      })
    }
    const page = await (await call('/contact', 'capped.example')).text()
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_AGE_MS + 50))
    const res = await sendTo('capped.example', { ...hiddenFields(page), ...visitor('one-too-many@example.org') })
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3000)
    const $ = cheerio.load(await res.text())
    expect($('[role=alert]').text()).toMatch(/great many messages/)
    expect($('textarea[name=message]').text()).toBe('A cake for one-too-many@example.org, please')
    expect(await listLeads(t.app.db, t.app.keyring, own.id)).toHaveLength(MESSAGES_PER_HOUR)
  })
})
