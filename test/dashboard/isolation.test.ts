import { afterAll, describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import { addDomain, insertActiveDomain } from '../../src/domain/sites/domains.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createAccountSite } from '../../src/domain/sites/sites.ts'
import { listDeadLetters } from '../../src/domain/webhooks/deliveries.ts'
import { queueTestDelivery } from '../../src/domain/webhooks/queue-delivery.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { bootstrap, chat } from '../agent/helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { formToken, get, post, signedIn } from './helpers.ts'
import { until } from '../helpers/polling.ts'

// Everything Alice has, Bob asks for by its id: each answer is 404 and nothing of hers changes.
describe('two accounts in the dashboard', async () => {
  const receiver = await startReceiver({ status: 400, body: 'no' })
  afterAll(() => receiver.close())
  const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })
  const alice = await signedIn(app, 'alice@example.com')
  const bob = await signedIn(app, 'bob@example.com')
  const aliceAccount = alice.user.accountId
  await updateAccount(app.db, aliceAccount, { plan: 'pro' })
  await withAssistantAddOn(app.db, aliceAccount)
  await updateAccount(app.db, bob.user.accountId, { plan: 'pro' })

  const { token: aliceToken } = await createApiToken(app.db, { accountId: aliceAccount, name: 'alice-ci', scopes: ['read:sites'] })
  const site = await createAccountSite(app.db, aliceAccount, {
    name: 'Alice shop',
    assistant: { enabled: true, handoff: true, lead: true },
  })
  await insertActiveDomain(app.db, site.id, 'alice-shop.example')
  const pending = await addDomain(app.db, site.id, 'www.alice-shop.example')
  const leadId = (await insertLead(app.db, app.keyring, {
    siteId: site.id,
    sessionId: null,
    email: 'alices-lead@example.com',
    name: 'Lena Lead',
    note: undefined,
    consent: { version: '2026-07-24.1', digest: 'b'.repeat(64), locale: 'en', acceptedAt: new Date() },
    source: 'assistant',
  }))!
  const session = await bootstrap(app, { url: 'https://alice-shop.example/' })
  const asked = await chat(app, session, 'Can I talk to a real person?')
  expect(asked.json().handoff.state).toBe('requested')
  const { row: endpoint } = await createEndpoint(app.db, app.keyring, aliceAccount, { url: receiver.url, eventTypes: ['site.published'] })
  await queueTestDelivery(app.db, aliceAccount, endpoint.id)
  // The receiver answers 400, which is final: the delivery becomes a dead letter at once.
  const [deadLetter] = await until(async () => {
    const { items } = await listDeadLetters(app.db, aliceAccount, { limit: 10, offset: 0 })
    return items.length > 0 ? items : undefined
  })
  // One action of Alice's own, so her audit log has a record to hide.
  const own = await formToken(app, alice.cookie, `/app/webhooks/${endpoint.id}`)
  expect(
    (await post(app, `/app/webhooks/${endpoint.id}`, own.cookie, { _csrf: own.token, event_types: ['site.published', 'social.posted'] }))
      .statusCode,
  ).toBe(303)

  /** Alice's rows in every table an action could touch. */
  const snapshot = async () => ({
    tokens: await app.db.selectFrom('api_tokens').selectAll().where('account_id', '=', aliceAccount).execute(),
    endpoints: await app.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', aliceAccount).execute(),
    deliveries: await app.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', aliceAccount).orderBy('id').execute(),
    domains: await app.db.selectFrom('domains').selectAll().where('site_id', '=', site.id).orderBy('id').execute(),
    leads: await app.db.selectFrom('leads').selectAll().where('site_id', '=', site.id).execute(),
    sessions: await app.db.selectFrom('agent_sessions').selectAll().where('site_id', '=', site.id).execute(),
    messages: await app.db.selectFrom('agent_messages').select(['id']).where('session_id', '=', session.session_id).execute(),
    builds: await app.db.selectFrom('builds').selectAll().where('site_id', '=', site.id).execute(),
    audit: await app.db.selectFrom('audit_log').selectAll().where('account_id', '=', aliceAccount).orderBy('id').execute(),
    verifyJobs: await app.db.selectFrom('jobs').select('id').where('name', '=', 'domain.verify').execute(),
  })

  it('answers 404 to every action Bob tries on Alice’s ids, and changes nothing', async () => {
    const before = await snapshot()
    expect(before.audit.length).toBeGreaterThan(0)
    const { cookie, token } = await formToken(app, bob.cookie, '/app/tokens')
    const form = { _csrf: token }
    const hour = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16)
    const later = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16)
    const attempts: Array<[string, Record<string, string | string[]>]> = [
      [`/app/tokens/${aliceToken.id}/rotate`, form],
      [`/app/tokens/${aliceToken.id}/revoke`, form],
      [`/app/webhooks/${endpoint.id}`, { ...form, event_types: ['site.published', 'lead.received'] }],
      [`/app/webhooks/${endpoint.id}/rotate-secret`, form],
      [`/app/webhooks/${endpoint.id}/test`, form],
      [`/app/webhooks/${endpoint.id}/replay`, { ...form, since: hour, until: later }],
      [`/app/webhooks/${endpoint.id}/disable`, form],
      [`/app/webhooks/${endpoint.id}/enable`, form],
      [`/app/webhooks/${endpoint.id}/delete`, form],
      [`/app/webhooks/dead-letters/${deadLetter!.id}/replay`, form],
      [`/app/conversations/${session.session_id}/take`, form],
      [`/app/conversations/${session.session_id}/messages`, { ...form, text: 'Hello from Bob' }],
      [`/app/conversations/${session.session_id}/resolve`, form],
      [`/app/domains/${pending.id}/verify`, form],
      [`/app/domains/${pending.id}/delete`, form],
      [`/app/sites/${site.id}/domains`, { ...form, hostname: 'bob.alice-shop.example' }],
      [`/app/sites/${site.id}/rebuild`, form],
      [`/app/leads/${leadId}/delete`, form],
    ]
    for (const [url, body] of attempts) {
      const res = await post(app, url, cookie, body)
      expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(404)
      expect(res.body).not.toContain('alice')
    }
    for (const url of [`/app/webhooks/${endpoint.id}`, `/app/conversations/${session.session_id}`, `/app/sites/${site.id}`]) {
      expect((await get(app, url, bob.cookie)).statusCode, url).toBe(404)
    }
    expect(await snapshot()).toEqual(before)

    // Bob's own audit log holds his refused attempts, each with the answer he got.
    const bobsRows = await app.db
      .selectFrom('audit_log')
      .select(['operation', 'status'])
      .where('account_id', '=', bob.user.accountId)
      .execute()
    expect(bobsRows).toHaveLength(attempts.length)
    expect(new Set(bobsRows.map((r) => r.status))).toEqual(new Set([404]))
  })

  it('shows Bob none of Alice’s tokens, endpoints, dead letters, conversations, leads or audit records', async () => {
    const hidden = [
      aliceToken.id,
      'alice-ci',
      endpoint.id,
      receiver.url,
      deadLetter!.event_id,
      session.session_id,
      'alices-lead@example.com',
      'Lena Lead',
      'Alice shop',
      site.id,
    ]
    for (const url of [
      '/app',
      '/app/sites',
      '/app/tokens',
      '/app/webhooks',
      '/app/conversations',
      '/app/leads',
      `/app/leads?site_id=${site.id}`,
      '/app/leads.csv',
      '/app/audit-log',
      `/app/audit-log?token_id=${aliceToken.id}`,
    ]) {
      const res = await get(app, url, bob.cookie)
      expect(res.statusCode, url).toBe(200)
      // What Bob typed comes back in the filter fields and the export link; nothing else may.
      const shown = res.body.replace(/ value="[^"]*"/g, '').replace(/leads\.csv\?site_id=[^"]*/g, '')
      for (const secret of hidden) expect(shown, `${url} shows ${secret}`).not.toContain(secret)
    }
    const filtered = await get(app, `/app/audit-log?token_id=${aliceToken.id}`, bob.cookie)
    expect(filtered.body).toContain('0 records.')
    // Alice sees them, so the pages above would have shown them had they leaked.
    const hers = await get(app, '/app/webhooks', alice.cookie)
    expect(hers.body).toContain(endpoint.id)
    expect(hers.body).toContain(deadLetter!.event_id)
    expect((await get(app, '/app/audit-log', alice.cookie)).body).toContain('dashboard.webhooks.update')
  })
})
