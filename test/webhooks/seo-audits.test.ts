import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { queueDueReports } from '../../src/domain/seo-reports/reports.ts'
import { periodOf } from '../../src/domain/seo-reports/schedule.ts'
import { serveFixtureForFile } from '../fixtures/sites/serve.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { until } from '../helpers/polling.ts'

// The audit fetches a fixture site on loopback, which only OUTBOUND_ALLOW_PRIVATE_NETWORKS permits.
const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', API_URL: 'https://api.platform.test' } })
const fixture = await serveFixtureForFile('clean')

type Json = Record<string, any>

async function subscribed(): Promise<{ account: TestAccount; receiver: Receiver; secret: string }> {
  const account = await makeAccount(app)
  const receiver = await startReceiver()
  const res = await app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: account.headers,
    payload: { url: receiver.url, event_types: ['seo.report.ready'] },
  })
  expect(res.statusCode, res.body).toBe(201)
  return { account, receiver, secret: (res.json() as Json).secret }
}

const get = (account: TestAccount, url: string) => app.inject({ method: 'GET', url, headers: account.headers })
const post = (account: TestAccount, url: string) => app.inject({ method: 'POST', url, headers: account.headers })

describe('/v1/sites/{id}/audits', () => {
  it("audits the site's primary domain as a job and fires seo.report.ready with its scores", async () => {
    const { account, receiver, secret } = await subscribed()
    const site = await createSite(app.db, { name: 'Audited', hostname: fixture.domain, accountId: account.accountId, status: 'live' })
    const res = await post(account, `/v1/sites/${site.id}/audits`)
    expect(res.statusCode, res.body).toBe(202)
    const queued = res.json() as Json
    expect(queued).toMatchObject({ site_id: site.id, domain: fixture.domain, state: 'queued', trigger: 'api', score: null, report: null })
    expect(res.headers['location']).toBe(`/v1/sites/${site.id}/audits/${queued.id}`)

    const done = await until(async () => {
      const body = (await get(account, `/v1/sites/${site.id}/audits/${queued.id}`)).json() as Json
      return body.state === 'done' ? body : undefined
    }, 25_000)
    expect(done.score).toBeGreaterThan(0)
    expect(Object.keys(done.axes).sort()).toEqual(['aeo', 'geo', 'seo'])
    expect(done.report).toMatchObject({ domain: fixture.domain, reachable: true, score: done.score })

    await receiver.waitFor(1)
    const request = receiver.requests[0]!
    const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Json
    expect(payload).toEqual({
      type: 'seo.report.ready',
      timestamp: expect.any(String),
      data: {
        audit_id: queued.id,
        site_id: site.id,
        domain: fixture.domain,
        score: done.score,
        axes: done.axes,
        url: `https://api.platform.test/v1/sites/${site.id}/audits/${queued.id}`,
      },
    })
  })

  it("refuses what cannot be audited and hides other accounts' sites and audits", async () => {
    const { account } = await subscribed()
    const stranger = await makeAccount(app)
    const site = await createSite(app.db, {
      name: 'Mine',
      hostname: `127.0.0.3:${fixture.domain.split(':')[1]}`,
      accountId: account.accountId,
    })
    const noDomain = await createSite(app.db, { name: 'No domain', accountId: account.accountId })
    const conflict = await post(account, `/v1/sites/${noDomain.id}/audits`)
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json()).toMatchObject({ code: 'site_has_no_domain' })
    expect((await post(stranger, `/v1/sites/${site.id}/audits`)).json()).toMatchObject({ status: 404, code: 'not_found' })
    const queued = (await post(account, `/v1/sites/${site.id}/audits`)).json() as Json
    expect((await get(stranger, `/v1/sites/${site.id}/audits/${queued.id}`)).statusCode).toBe(404)
    expect((await get(account, `/v1/sites/${site.id}/audits/audit_unknown`)).statusCode).toBe(404)
    expect((await get(account, `/v1/sites/${noDomain.id}/audits/${queued.id}`)).statusCode).toBe(404)
    const plus = await makeAccount(app, 'plus')
    expect((await post(plus, `/v1/sites/${site.id}/audits`)).json()).toMatchObject({ status: 403, code: 'plan_required' })
  })

  it('needs write:pages to ask for an audit (it starts work) and read:sites to read one', async () => {
    const { account } = await subscribed()
    const site = await createSite(app.db, {
      name: 'Scoped',
      hostname: `127.0.0.4:${fixture.domain.split(':')[1]}`,
      accountId: account.accountId,
    })
    const tokenWith = async (scopes: string[]) => {
      const { token, secret } = await createApiToken(app.db, { accountId: account.accountId, name: scopes.join(' '), scopes })
      return { accountId: account.accountId, tokenId: token.id, secret, headers: { authorization: `Bearer ${secret}` } }
    }
    const reader = await tokenWith(['read:sites'])
    const writer = await tokenWith(['write:pages'])
    const refused = await post(reader, `/v1/sites/${site.id}/audits`)
    expect(refused.json()).toMatchObject({ status: 403, code: 'insufficient_scope' })
    expect(await app.db.selectFrom('site_audits').select('id').where('site_id', '=', site.id).execute()).toEqual([])
    const queued = await post(writer, `/v1/sites/${site.id}/audits`)
    expect(queued.statusCode, queued.body).toBe(202)
    expect((await get(reader, `/v1/sites/${site.id}/audits/${(queued.json() as Json).id}`)).statusCode).toBe(200)
  })

  it("the weekly report of a pro account's plan audits every live site with a domain, and only those", async () => {
    const { account, receiver } = await subscribed()
    const live = await createSite(app.db, {
      name: 'Live',
      hostname: `127.0.0.1:${fixture.domain.split(':')[1]}`,
      accountId: account.accountId,
      status: 'live',
    })
    const draft = await createSite(app.db, {
      name: 'Draft',
      hostname: `127.0.0.2:${fixture.domain.split(':')[1]}`,
      accountId: account.accountId,
      status: 'draft',
    })
    // The end of this week: every site's moment in it has come.
    const endOfWeek = new Date(periodOf('weekly', new Date()).end.getTime() - 1)
    expect((await queueDueReports(app.db, app.config.SITES_DOMAIN, endOfWeek)).length).toBeGreaterThanOrEqual(1)
    const audits = await app.db
      .selectFrom('site_audits')
      .select(['site_id', 'trigger'])
      .where('account_id', '=', account.accountId)
      .execute()
    expect(audits).toEqual([{ site_id: live.id, trigger: 'weekly' }])
    expect(audits.some((a) => a.site_id === draft.id)).toBe(false)
    await receiver.waitFor(1, 25_000)
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ type: 'seo.report.ready', data: { site_id: live.id } })
  })
})
