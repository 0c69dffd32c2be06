import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { startDnsServer } from '../helpers/dns-server.ts'
import { until } from '../helpers/polling.ts'
import { bootstrap, chat, expectAgentError, freshIp } from '../agent/helpers.ts'
import { makeAccount } from './helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { client, expectProblem } from './sites-helpers.ts'

const dns = await startDnsServer()
afterAll(() => dns.close())
const { app } = await buildTestApp({
  env: { BASE_URL: 'https://platform.test', API_URL: 'https://api.platform.test', DNS_SERVERS: dns.address },
})
const owner = await makeAccount(app, 'pro')
await withAssistantAddOn(app.db, owner.accountId)
const other = await makeAccount(app, 'pro')
const api = client(app, owner.headers)
const stranger = client(app, other.headers)

async function newSite(body: Record<string, unknown> = { name: 'Domains' }, as = api) {
  return (await as('POST', '/v1/sites', body)).json() as { id: string }
}

/** Asks for verification (202) and waits for the job's verdict. */
async function verify(domainId: string, as = api) {
  const res = await as('POST', `/v1/domains/${domainId}/verify`)
  expect(res.statusCode, res.body).toBe(202)
  return settled(domainId, as)
}

/** The domain once its verification job has given a verdict (the job queue may be slow on a loaded machine). */
function settled(domainId: string, as = api) {
  return until(
    async () => {
      const domain = (await as('GET', `/v1/domains/${domainId}`)).json()
      return domain.status !== 'pending' && domain
    },
    20_000,
    'the verification verdict',
  )
}

describe('/v1/sites/{site_id}/domains and /v1/domains/{id}', () => {
  it('adds a pending domain with its TXT challenge, verifies it through DNS and makes it the site domain', async () => {
    const site = await newSite()
    const created = await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'Shop.Example.' })
    expect(created.statusCode, created.body).toBe(201)
    const domain = created.json()
    expect(domain).toEqual({
      id: expect.stringMatching(/^dom_/),
      site_id: site.id,
      hostname: 'shop.example',
      status: 'pending',
      primary: true,
      verification: { type: 'TXT', name: '_wps-challenge.shop.example', value: expect.stringMatching(/^wps-verify=/) },
      verified_at: null,
      failure_reason: null,
    })
    expect(created.headers['location']).toBe(`/v1/domains/${domain.id}`)

    expect(await verify(domain.id)).toMatchObject({
      status: 'failed',
      failure_reason: { code: 'no_record', detail: 'No TXT record was found at _wps-challenge.shop.example' },
    })
    dns.setTxt('_wps-challenge.shop.example', [domain.verification.value])
    expect(await verify(domain.id)).toMatchObject({ status: 'active', verified_at: expect.any(String), failure_reason: null })
    expect((await api('GET', `/v1/sites/${site.id}`)).json()).toMatchObject({ domain: 'shop.example', url: 'https://shop.example/' })
    const list = (await api('GET', `/v1/sites/${site.id}/domains`)).json()
    expect(list.meta.total).toBe(1)
    expect(list.data[0].status).toBe('active')
  })

  it('says why a verification failed: no record, another value, a failed lookup naming the resolver', async () => {
    const site = await newSite({ name: 'Reasons' })
    const domain = (await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'reasons.example' })).json()
    const name = '_wps-challenge.reasons.example'
    dns.setTxt(name, ['wps-verify=an-old-value', 'v=spf1 -all'])
    const wrong = await verify(domain.id)
    expect(wrong).toMatchObject({
      status: 'failed',
      failure_reason: {
        code: 'wrong_value',
        detail: `The TXT record at ${name} holds "wps-verify=an-old-value", "v=spf1 -all", not the value "${domain.verification.value}"`,
      },
    })
    // The reason is in the resource as read and listed, and gone while a new check runs.
    expect((await api('GET', `/v1/sites/${site.id}/domains`)).json().data[0].failure_reason).toEqual(wrong.failure_reason)
    const again = await api('POST', `/v1/domains/${domain.id}/verify`)
    expect(again.json()).toMatchObject({ status: 'pending', failure_reason: null })
    await settled(domain.id)

    dns.setServfail(name, true)
    expect(await verify(domain.id)).toMatchObject({
      status: 'failed',
      failure_reason: {
        code: 'lookup_failed',
        detail: `The TXT lookup of ${name} at ${dns.address} failed: the server failed to answer (SERVFAIL)`,
      },
    })
    dns.setServfail(name, false)
    dns.setTxt(name, [domain.verification.value])
    expect(await verify(domain.id)).toMatchObject({ status: 'active', failure_reason: null })
  })

  it('checks again when asked right after a verdict, while the job that gave it is still finishing', async () => {
    const site = await newSite({ name: 'Quick' })
    const domain = (await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'quick.example' })).json()
    expect(await verify(domain.id)).toMatchObject({ status: 'failed' })
    // The verdict is written by the job's handler; the runner records the job done a moment later.
    // Held in that moment, the job row still runs when the owner, having added the record, asks again.
    const held =
      await sql`update jobs set state = 'running', finished_at = null, lease_owner = 'finishing', lease_until = now() + interval '1 minute' where name = 'domain.verify' and payload->>'domain_id' = ${domain.id}`.execute(
        app.db,
      )
    expect(Number(held.numAffectedRows)).toBe(1)
    dns.setTxt('_wps-challenge.quick.example', [domain.verification.value])
    expect(await verify(domain.id)).toMatchObject({ status: 'active', failure_reason: null })
  })

  it('keeps a hostname active on one site only: 409 hostname_taken', async () => {
    const first = await newSite({ name: 'First' })
    const second = await newSite({ name: 'Second' }, stranger)
    const mine = (await api('POST', `/v1/sites/${first.id}/domains`, { hostname: 'unique.example' })).json()
    expectProblem(await api('POST', `/v1/sites/${first.id}/domains`, { hostname: 'UNIQUE.example' }), 409, 'hostname_taken')
    const theirs = (await stranger('POST', `/v1/sites/${second.id}/domains`, { hostname: 'unique.example' })).json()
    dns.setTxt('_wps-challenge.unique.example', [mine.verification.value])
    expect(await verify(mine.id)).toMatchObject({ status: 'active' })
    expectProblem(await stranger('POST', `/v1/sites/${second.id}/domains`, { hostname: 'unique.example' }), 409, 'hostname_taken')
    dns.setTxt('_wps-challenge.unique.example', [theirs.verification.value])
    expect(await verify(theirs.id, stranger)).toMatchObject({
      status: 'failed',
      failure_reason: { code: 'hostname_taken', detail: 'unique.example is already active on another site' },
    })
    expect((await api('GET', `/v1/domains/${mine.id}`)).json().status).toBe('active')
  })

  it('refuses IPs, bad names, the service own hostnames and bad input', async () => {
    const site = await newSite()
    for (const hostname of [
      '192.0.2.10',
      '[2001:db8::1]',
      'localhost',
      'nodots',
      'bad_name.example',
      'a.example:8080',
      'platform.test',
      'www.platform.test',
      'api.platform.test',
      '*.example.com',
    ]) {
      expectProblem(await api('POST', `/v1/sites/${site.id}/domains`, { hostname }), 400, 'invalid_hostname')
    }
    for (const body of [
      { hostname: 5 },
      { hostname: '' },
      { hostname: 'x'.repeat(254) },
      { hostname: 'ok.example', extra: 1 },
      {},
      { hostname: 'ok.example', primary: 'yes' },
    ]) {
      expectProblem(await api('POST', `/v1/sites/${site.id}/domains`, body), 400, 'validation_failed')
    }
    expect((await api('GET', `/v1/sites/${site.id}/domains`)).json().meta.total).toBe(0)
    expectProblem(await api('GET', '/v1/domains/nope'), 400, 'validation_failed')
  })

  it('moves the primary flag and deletes with If-Match; other accounts get 404', async () => {
    const site = await newSite()
    const a = (await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'a.primary.example' })).json()
    const b = (await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'b.primary.example', primary: true })).json()
    expect(b.primary).toBe(true)
    expect((await api('GET', `/v1/domains/${a.id}`)).json().primary).toBe(false)
    expectProblem(await stranger('GET', `/v1/domains/${a.id}`), 404, 'not_found')
    expectProblem(await stranger('DELETE', `/v1/domains/${a.id}`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/domains/${a.id}/verify`), 404, 'not_found')
    expectProblem(await stranger('GET', `/v1/sites/${site.id}/domains`), 404, 'not_found')
    expectProblem(await stranger('POST', `/v1/sites/${site.id}/domains`, { hostname: 'steal.example' }), 404, 'not_found')
    const etag = (await api('GET', `/v1/domains/${b.id}`)).headers['etag'] as string
    expectProblem(await api('DELETE', `/v1/domains/${b.id}`, undefined, { 'if-match': '"stale"' }), 412, 'precondition_failed')
    expect((await api('DELETE', `/v1/domains/${b.id}`, undefined, { 'if-match': etag })).statusCode).toBe(204)
    expect((await api('GET', `/v1/domains/${a.id}`)).json().primary).toBe(true)
    expectProblem(await api('GET', `/v1/domains/${b.id}`), 404, 'not_found')
  })
})

describe('the sales assistant on a site created through /v1', () => {
  it('answers bootstrap for the site domain once it is active, whether or not the site is published', async () => {
    const site = await newSite({
      name: 'Bäckerei Sonne',
      default_locale: 'de',
      locales: ['de', 'en'],
      assistant: { enabled: true, persona: 'Sonja', lead: true, handoff: true },
    })
    const domain = (await api('POST', `/v1/sites/${site.id}/domains`, { hostname: 'sonne.example' })).json()
    const ask = () =>
      app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: 'https://sonne.example/' }, remoteAddress: freshIp() })
    expectAgentError(await ask(), 404, 'feature-disabled')

    dns.setTxt('_wps-challenge.sonne.example', [domain.verification.value])
    expect(await verify(domain.id)).toMatchObject({ status: 'active' })
    expect((await api('GET', `/v1/sites/${site.id}`)).json().status).toBe('draft')
    const session = await bootstrap(app, { url: 'https://sonne.example/' })
    expect(session).toMatchObject({ locale: 'de', persona: 'Sonja', capabilities: { booking: false, lead: true, handoff: true } })
    expect((session['opener'] as { text: string }).text).toContain('Bäckerei Sonne')
    const turn = await chat(app, session, 'Was kostet der Pro-Tarif?')
    expect(turn.statusCode, turn.body).toBe(200)
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/api/agent/chat',
      headers: { origin: 'https://sonne.example', 'access-control-request-method': 'POST' },
      remoteAddress: freshIp(),
    })
    expect(preflight.headers['access-control-allow-origin']).toBe('https://sonne.example')

    // Switched off in the site's settings, or the site taken offline: the assistant stops.
    await api('PATCH', `/v1/sites/${site.id}`, { assistant: { enabled: false } })
    expectAgentError(await ask(), 404, 'feature-disabled')
    await api('PATCH', `/v1/sites/${site.id}`, { assistant: { enabled: true } })
    expect((await ask()).statusCode).toBe(200)
    await app.db.updateTable('sites').set({ status: 'offline' }).where('id', '=', site.id).execute()
    expectAgentError(await ask(), 404, 'feature-disabled')
  })
})
