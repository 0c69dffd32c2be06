import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { insertActiveDomain } from '../../src/domain/sites/domains.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createPage } from '../../src/domain/sites/pages.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startDnsServer } from '../helpers/dns-server.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { dashboardBrowser, formToken, get, post, shownSecret, signedIn } from './helpers.ts'
import { until } from '../helpers/polling.ts'

// Every dashboard action as a browser without JavaScript sends it: a form post with the CSRF
// token, answered by a redirect to the page that shows the outcome.
describe('dashboard actions over plain form posts', async () => {
  const dns = await startDnsServer()
  const receiver = await startReceiver({ status: 200, body: 'ok' })
  afterAll(async () => {
    await receiver.close()
    await dns.close()
  })
  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', DNS_SERVERS: dns.address } })
  const owner = await signedIn(app, 'owner@example.com')
  const accountId = owner.user.accountId
  await updateAccount(app.db, accountId, { plan: 'pro' })
  await withAssistantAddOn(app.db, accountId)
  const site = await createAccountSite(app.db, accountId, { name: 'Owner shop', assistant: { enabled: true, handoff: true, lead: true } })
  await createPage(app.db, site, { path: '/', title: 'Home' })
  await insertActiveDomain(app.db, site.id, 'owner-shop.example')
  const { cookie, form, page, audited } = await dashboardBrowser(app, owner, '/app')

  it('rebuilds a site twice and rolls back to the first build', async () => {
    const builds: string[] = []
    for (let i = 0; i < 2; i++) {
      const res = await post(app, `/app/sites/${site.id}/rebuild`, cookie, form())
      expect(res.statusCode, res.body).toBe(303)
      expect(res.headers['location']).toBe(`/app/sites/${site.id}?done=build-queued`)
      const build = await until(() =>
        app.db
          .selectFrom('builds')
          .select(['id', 'status'])
          .where('site_id', '=', site.id)
          .where('status', 'in', ['succeeded', 'failed'])
          .where('id', 'not in', builds.length ? builds : ['none'])
          .executeTakeFirst(),
      )
      expect(build.status).toBe('succeeded')
      builds.push(build.id)
    }
    const [first, second] = builds as [string, string]
    const detail = await page(`/app/sites/${site.id}`)
    expect(detail).toContain(`Go back to ${first}`)
    expect(detail).not.toContain(`Go back to ${second}`)

    const back = await post(app, `/app/sites/${site.id}/rollback`, cookie, form({ build_id: first }))
    expect(back.statusCode, back.body).toBe(303)
    expect(back.headers['location']).toBe(`/app/sites/${site.id}?done=rolled-back`)
    expect(
      (await app.db.selectFrom('sites').select('live_build_id').where('id', '=', site.id).executeTakeFirstOrThrow()).live_build_id,
    ).toBe(first)
    const after = await page(`/app/sites/${site.id}?done=rolled-back`)
    expect(after).toContain('The site now serves the chosen build.')
    expect(after).toContain(`Go back to ${second}`)

    const unknown = await post(app, `/app/sites/${site.id}/rollback`, cookie, form({ build_id: 'bld_unknownunknownunknown' }))
    expect(unknown.statusCode).toBe(404)
    expect(await audited('sites.rollback')).toEqual([303, 404])
  })

  it('adds a domain with its TXT record, verifies it through DNS and removes it', async () => {
    const added = await post(app, `/app/sites/${site.id}/domains`, cookie, form({ hostname: 'WWW.Owner-Shop.example.' }))
    expect(added.statusCode, added.body).toBe(303)
    const domain = await app.db
      .selectFrom('domains')
      .selectAll()
      .where('site_id', '=', site.id)
      .where('hostname', '=', 'www.owner-shop.example')
      .executeTakeFirstOrThrow()
    let detail = await page(`/app/sites/${site.id}/domains?done=domain-added`)
    expect(detail).toContain('publish its TXT record')
    expect(detail).toContain('_wps-challenge.www.owner-shop.example')
    expect(detail).toContain(domain.verification_value)

    const status = async () =>
      (await app.db.selectFrom('domains').select('status').where('id', '=', domain.id).executeTakeFirstOrThrow()).status
    const verify = async () => {
      const res = await post(app, `/app/domains/${domain.id}/verify`, cookie, form())
      expect(res.statusCode, res.body).toBe(303)
      expect(res.headers['location']).toBe(`/app/sites/${site.id}/domains?done=verify-queued`)
      return until(async () => ((await status()) === 'pending' ? undefined : status()))
    }
    expect(await verify()).toBe('failed')
    expect(await page(`/app/sites/${site.id}/domains`)).toContain(
      'Verification failed: No TXT record was found at _wps-challenge.www.owner-shop.example',
    )
    dns.setTxt(`_wps-challenge.www.owner-shop.example`, [domain.verification_value])
    expect(await verify()).toBe('active')
    detail = await page(`/app/sites/${site.id}/domains`)
    expect(detail).not.toContain(`Verify www.owner-shop.example`)

    const refused = await post(app, `/app/sites/${site.id}/domains`, cookie, form({ hostname: '192.0.2.1' }))
    expect(refused.statusCode).toBe(400)
    expect(refused.body).toContain('role="alert"')

    const removed = await post(app, `/app/domains/${domain.id}/delete`, cookie, form())
    expect(removed.statusCode).toBe(303)
    expect(await page(`/app/sites/${site.id}/domains?done=domain-removed`)).toContain('The domain was removed.')
    expect(await app.db.selectFrom('domains').select('id').where('id', '=', domain.id).executeTakeFirst()).toBeUndefined()
    expect((await post(app, `/app/domains/${domain.id}/delete`, cookie, form())).statusCode).toBe(404)
    expect(await audited('domains.verify')).toEqual([303, 303])
    expect(await audited('domains.delete')).toEqual([303, 404])
  })

  it('resolves a conversation; a move the state no longer allows answers 409', async () => {
    const session = await bootstrap(app, { url: 'https://owner-shop.example/' })
    expect((await chat(app, session, 'Can I talk to a real person?')).json().handoff.state).toBe('requested')
    expect(await page(`/app/conversations/${session.session_id}`)).toContain('>Resolve</button>')
    const resolved = await post(app, `/app/conversations/${session.session_id}/resolve`, cookie, form())
    expect(resolved.statusCode, resolved.body).toBe(303)
    const detail = await page(`/app/conversations/${session.session_id}?done=resolved`)
    expect(detail).toContain('The conversation was resolved.')
    expect(detail).toContain('Handoff: <strong>resolved</strong>')
    expect(detail).not.toContain('>Take over</button>')
    const visitor = await bootstrap(app, { session_id: session.session_id, session_token: session.session_token })
    expect((visitor as unknown as { handoff: { state: string } }).handoff.state).toBe('resolved')
    const late = await post(app, `/app/conversations/${session.session_id}/take`, cookie, form())
    expect(late.statusCode).toBe(409)
    expect(late.body).toContain('Cannot do that now')
    expect(await audited('conversations.resolve')).toEqual([303])
    expect(await audited('conversations.take')).toEqual([409])
  })

  it('deletes a lead', async () => {
    const leadId = (await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: 'delete-me@example.com',
      name: undefined,
      note: undefined,
      consent: { version: '2026-07-24.1', digest: 'c'.repeat(64), locale: 'en', acceptedAt: new Date() },
      source: 'assistant',
    }))!
    expect(await page(`/app/leads?site_id=${site.id}`)).toContain('Delete lead delete-me@example.com')
    const deleted = await post(app, `/app/leads/${leadId}/delete`, cookie, form())
    expect(deleted.statusCode).toBe(303)
    const after = await page('/app/leads?done=lead-deleted')
    expect(after).toContain('The lead was deleted.')
    expect(after).not.toContain('delete-me@example.com')
    expect((await post(app, `/app/leads/${leadId}/delete`, cookie, form())).statusCode).toBe(404)
    expect(await audited('leads.delete')).toEqual([303, 404])
  })

  let endpointId = ''
  let secret = ''

  it('creates a webhook endpoint with an event filter, its secret shown once', async () => {
    const created = await post(
      app,
      '/app/webhooks',
      cookie,
      form({ url: receiver.url, description: 'CRM <sync>', event_types: ['site.published', 'lead.received'] }),
    )
    expect(created.statusCode, created.body).toBe(200)
    secret = shownSecret(created.body)!
    expect(secret).toMatch(/^whsec_/)
    expect(created.body).toContain('id="copy"')
    endpointId = /href="\/app\/webhooks\/(whep_[A-Za-z0-9_-]+)"/.exec(created.body)![1]!
    const list = await page('/app/webhooks')
    expect(list).not.toContain(secret)
    expect(list).toContain(receiver.url)
    expect(list).toContain('CRM &lt;sync&gt;')
    expect(list).toContain('site.published, lead.received')

    const bad = await post(app, '/app/webhooks', cookie, form({ url: 'ftp://example.com/hook' }))
    expect(bad.statusCode).toBe(400)
    const unknownType = await post(app, '/app/webhooks', cookie, form({ url: receiver.url, event_types: 'site.deleted' }))
    expect(unknownType.statusCode).toBe(400)
    const free = await signedIn(app, 'free@example.com')
    const freeForm = await formToken(app, free.cookie, '/app/webhooks')
    expect(freeForm.body).toContain('Webhooks need plan pro or above.')
    const refused = await post(app, '/app/webhooks', freeForm.cookie, { _csrf: freeForm.token, url: receiver.url })
    expect(refused.statusCode).toBe(403)
    expect(await app.db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', free.user.accountId).execute()).toEqual([])
    expect(await audited('webhooks.create')).toEqual([200, 400, 400])
  })

  it('changes the event filter', async () => {
    const saved = await post(app, `/app/webhooks/${endpointId}`, cookie, form({ event_types: 'social.posted' }))
    expect(saved.statusCode).toBe(303)
    expect(saved.headers['location']).toBe(`/app/webhooks/${endpointId}?done=webhook-updated`)
    const detail = await page(`/app/webhooks/${endpointId}`)
    expect(detail).toContain('value="social.posted" checked')
    expect(detail).not.toContain('value="site.published" checked')
    const row = await app.db.selectFrom('webhook_endpoints').select('event_types').where('id', '=', endpointId).executeTakeFirstOrThrow()
    expect(row.event_types).toEqual(['social.posted'])
    // Nothing checked: every event type.
    expect((await post(app, `/app/webhooks/${endpointId}`, cookie, form())).statusCode).toBe(303)
    expect(await page('/app/webhooks')).toMatch(/data-label="Events">all</)
    expect((await post(app, `/app/webhooks/${endpointId}`, cookie, form({ event_types: 'nope' }))).statusCode).toBe(400)
  })

  it('sends a test event signed with the shown secret and lists the attempt', async () => {
    const sent = await post(app, `/app/webhooks/${endpointId}/test`, cookie, form())
    expect(sent.statusCode, sent.body).toBe(303)
    expect(sent.headers['location']).toBe(`/app/webhooks/${endpointId}?done=test-sent`)
    const [delivery] = await receiver.waitFor(1)
    expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' })
    await until(async () => (await page(`/app/webhooks/${endpointId}`)).includes('webhook.test'))
    const detail = await page(`/app/webhooks/${endpointId}`)
    expect(detail).toMatch(/data-label="Event">webhook\.test<\/td><td data-label="Attempt">1<\/td><td data-label="Status">200</)
    // The receiver's answer is stored sealed and shown opened.
    expect(detail).toMatch(/data-label="Answer"><code class="long">ok<\/code>/)
  })

  it('replays the events of a time window', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16)
    const until_ = new Date(Date.now() + 120_000).toISOString().slice(0, 16)
    const replayed = await post(app, `/app/webhooks/${endpointId}/replay`, cookie, form({ since, until: until_ }))
    expect(replayed.statusCode, replayed.body).toBe(303)
    expect(replayed.headers['location']).toBe(`/app/webhooks/${endpointId}?done=window-replayed`)
    const [first, again] = await receiver.waitFor(2)
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    const backwards = await post(app, `/app/webhooks/${endpointId}/replay`, cookie, form({ since: until_, until: since }))
    expect(backwards.statusCode).toBe(400)
    expect(backwards.body).toContain('The window must end after it starts')
    expect(await audited('webhooks.replay')).toEqual([303, 400])
  })

  it('rotates the secret once; a second rotation during the overlap is refused and recorded as such', async () => {
    const rotated = await post(app, `/app/webhooks/${endpointId}/rotate-secret`, cookie, form())
    expect(rotated.statusCode, rotated.body).toBe(200)
    const next = shownSecret(rotated.body)
    expect(next).toMatch(/^whsec_/)
    expect(next).not.toBe(secret)
    expect(rotated.body).toContain('The previous secret keeps signing until')
    const again = await post(app, `/app/webhooks/${endpointId}/rotate-secret`, cookie, form())
    expect(again.statusCode).toBe(409)
    expect(again.body).not.toContain('whsec_')
    const missing = await post(app, '/app/webhooks/whep_unknownunknownunknown/rotate-secret', cookie, form())
    expect(missing.statusCode).toBe(404)
    expect(await audited('webhooks.rotateSecret')).toEqual([200, 409, 404])
  })

  it('disables and enables the endpoint; a disabled endpoint takes no test event', async () => {
    const off = await post(app, `/app/webhooks/${endpointId}/disable`, cookie, form())
    expect(off.statusCode).toBe(303)
    const detail = await page(`/app/webhooks/${endpointId}?done=webhook-disabled`)
    expect(detail).toContain('The endpoint was disabled.')
    expect(detail).toContain('State: <strong>disabled</strong>')
    const refused = await post(app, `/app/webhooks/${endpointId}/test`, cookie, form())
    expect(refused.statusCode).toBe(409)
    expect(refused.body).toContain('enable it first')
    const on = await post(app, `/app/webhooks/${endpointId}/enable`, cookie, form())
    expect(on.statusCode).toBe(303)
    expect(await page(`/app/webhooks/${endpointId}`)).toContain('State: <strong>enabled</strong>')
    expect(await audited('webhooks.test')).toEqual([303, 409])
  })

  it('refuses every webhook action once the plan falls below pro, and still shows the endpoint', async () => {
    await updateAccount(app.db, accountId, { plan: 'plus' })
    try {
      const attempts = async () =>
        (await app.db.selectFrom('webhook_attempts').select('id').where('endpoint_id', '=', endpointId).execute()).length
      const before = await attempts()
      for (const action of ['test', 'rotate-secret', 'disable']) {
        const refused = await post(app, `/app/webhooks/${endpointId}/${action}`, cookie, form())
        expect(refused.statusCode, action).toBe(403)
      }
      expect(await page(`/app/webhooks/${endpointId}`)).toContain(receiver.url)
      expect(await attempts()).toBe(before)
      expect(
        (await app.db.selectFrom('webhook_endpoints').select('enabled').where('id', '=', endpointId).executeTakeFirstOrThrow()).enabled,
      ).toBe(true)
    } finally {
      await updateAccount(app.db, accountId, { plan: 'pro' })
    }
  })

  it('records a dead-letter replay that finds nothing as 404, not as done', async () => {
    const res = await post(app, '/app/webhooks/dead-letters/dlv_unknownunknownunknown/replay', cookie, form())
    expect(res.statusCode).toBe(404)
    expect(await audited('webhooks.replayDeadLetter')).toEqual([404])
  })

  it('deletes the endpoint', async () => {
    const deleted = await post(app, `/app/webhooks/${endpointId}/delete`, cookie, form())
    expect(deleted.statusCode).toBe(303)
    expect(deleted.headers['location']).toBe('/app/webhooks?done=webhook-deleted')
    const list = await page('/app/webhooks?done=webhook-deleted')
    expect(list).toContain('The endpoint was deleted.')
    expect(list).not.toContain(endpointId)
    expect((await get(app, `/app/webhooks/${endpointId}`, cookie)).statusCode).toBe(404)
    expect(await audited('webhooks.delete')).toEqual([303])
  })

  it('filters the audit log by token and by time', async () => {
    const { token: apiToken, secret: apiSecret } = await createApiToken(app.db, { accountId, name: 'reader', scopes: ['read:sites'] })
    for (let i = 0; i < 2; i++)
      expect((await app.inject({ method: 'GET', url: '/v1/sites', headers: { authorization: `Bearer ${apiSecret}` } })).statusCode).toBe(
        200,
      )
    // Records are written in batches off the request path, and the count and the rows are read side
    // by side: wait until both show the two calls.
    const byToken = await until(async () => {
      const body = await page(`/app/audit-log?token_id=${apiToken.id}`)
      return body.includes('2 records.') && body.match(/data-label="Operation"><code>sites\.list<\/code></g)?.length === 2
        ? body
        : undefined
    })
    expect(byToken.match(/data-label="Operation"><code>sites\.list<\/code></g)).toHaveLength(2)
    expect(byToken).not.toContain('dashboard.')
    const all = await page('/app/audit-log')
    expect(all).toContain('dashboard.webhooks.delete')
    expect(all).toContain('sites.list')

    const minute = (offset: number) => new Date(Date.now() + offset * 60_000).toISOString().slice(0, 16)
    expect(await page(`/app/audit-log?token_id=${apiToken.id}&since=${minute(-5)}&until=${minute(5)}`)).toContain('2 records.')
    expect(await page(`/app/audit-log?token_id=${apiToken.id}&since=${minute(5)}`)).toContain('0 records.')
    expect(await page(`/app/audit-log?until=${minute(-60)}`)).toContain('0 records.')
    const bad = await get(app, '/app/audit-log?since=yesterday', cookie)
    expect(bad.statusCode).toBe(400)
  })

  it('signs out in one step: the header form posts to /signout with its CSRF token', async () => {
    const person = await signedIn(app, 'leaving@example.com')
    const res = await get(app, '/app/leads', person.cookie)
    const signOut = /<form method="post" action="\/signout"><input type="hidden" name="_csrf" value="([^"]+)">/.exec(res.body)
    expect(signOut).not.toBeNull()
    const csrfCookie = String(res.headers['set-cookie']).split(';')[0]
    const done = await post(app, '/signout', `${person.cookie}; ${csrfCookie}`, { _csrf: signOut![1]! })
    expect(done.statusCode, done.body).toBe(200)
    expect(done.body).toContain('You are signed out')
    const after = await get(app, '/app', person.cookie)
    expect(after.statusCode).toBe(303)
    expect(after.headers['location']).toMatch(/^\/signin/)
  })
})
