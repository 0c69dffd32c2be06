import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { insertLead } from '../../src/domain/leads/leads.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { announceSitePublished } from '../../src/sites/build-job.ts'
import { bootstrap, event } from '../agent/helpers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { startReceiver, type Receiver } from '../helpers/receiver.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { withAssistantAddOn } from '../helpers/add-ons.ts'

const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', BASE_URL: 'https://platform.test' } })

type Json = Record<string, any>

/** A pro account with a site and one endpoint receiving every event type. */
async function subscriber(hostname: string): Promise<{ account: TestAccount; siteId: string; receiver: Receiver; secret: string }> {
  const account = await makeAccount(app)
  await withAssistantAddOn(app.db, account.accountId)
  const site = await createSite(app.db, {
    name: 'Shop',
    hostname,
    accountId: account.accountId,
    settings: { assistant: { enabled: true, capabilities: { lead: true } } },
  })
  const receiver = await startReceiver()
  const res = await app.inject({ method: 'POST', url: '/v1/webhooks', headers: account.headers, payload: { url: receiver.url } })
  expect(res.statusCode, res.body).toBe(201)
  return { account, siteId: site.id, receiver, secret: (res.json() as Json).secret }
}

const verified = (secret: string, receiver: Receiver, index: number) => {
  const request = receiver.requests[index]!
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Json
}

describe('event sources', () => {
  it("lead.received: the sales assistant's lead is delivered with its personal data, once", async () => {
    const { siteId, receiver, secret } = await subscriber('shop-assistant.example')
    const s = await bootstrap(app, { url: 'https://shop-assistant.example/pricing' })
    const lead = {
      email: 'vera@example.com',
      name: 'Vera Visitor',
      note: 'Call me',
      consent: true,
      consent_version: '2026-07-24.1',
      consent_digest: s.lead_consent!.digest,
    }
    expect((await event(app, s, 'lead_submitted', lead)).statusCode).toBe(202)
    await receiver.waitFor(1)
    const payload = verified(secret, receiver, 0)
    expect(payload).toMatchObject({
      type: 'lead.received',
      data: { site_id: siteId, source: 'assistant', email: 'vera@example.com', name: 'Vera Visitor', note: 'Call me' },
    })
    const stored = await app.db.selectFrom('leads').select('id').where('session_id', '=', s.session_id).executeTakeFirstOrThrow()
    expect(payload.data.lead_id).toBe(stored.id)
    const rows = await app.db.selectFrom('events').selectAll().where('site_id', '=', siteId).execute()
    expect(JSON.stringify(rows)).not.toMatch(/vera@example\.com|Vera Visitor|Call me/)

    // The same submission again stores nothing and fires nothing.
    expect((await event(app, s, 'lead_submitted', lead)).statusCode).toBe(202)
    await new Promise((r) => setTimeout(r, 500))
    expect(receiver.requests).toHaveLength(1)
    expect(await app.db.selectFrom('events').select('id').where('site_id', '=', siteId).execute()).toHaveLength(1)
  })

  it('lead.received: a contact-form lead fires it through the same repository call', async () => {
    const { siteId, receiver, secret } = await subscriber('shop-form.example')
    const leadId = await insertLead(app.db, app.keyring, {
      siteId,
      sessionId: null,
      email: 'form@example.com',
      name: 'Fay Form',
      consent: { version: '2026-07-24.1', digest: 'd'.repeat(64), locale: 'en', acceptedAt: new Date() },
      source: 'contact_form',
    })
    await receiver.waitFor(1)
    expect(verified(secret, receiver, 0)).toMatchObject({
      type: 'lead.received',
      data: { lead_id: leadId, source: 'contact_form', email: 'form@example.com', name: 'Fay Form', note: null },
    })
  })

  it('site.published: a build going live fires it from the go-live transaction', async () => {
    const { account, siteId, receiver, secret } = await subscriber('shop-live.example')
    const at = new Date()
    await app.db.transaction().execute((trx) =>
      announceSitePublished(trx, {
        accountId: account.accountId,
        siteId,
        buildId: 'bld_1',
        url: 'https://shop-live.example',
        pages: 3,
        at,
      }),
    )
    await receiver.waitFor(1)
    expect(verified(secret, receiver, 0)).toMatchObject({
      type: 'site.published',
      data: { site_id: siteId, build_id: 'bld_1', url: 'https://shop-live.example/', pages: 3, published_at: at.toISOString() },
    })
    // A go-live that rolls back announces nothing.
    await expect(
      app.db.transaction().execute(async (trx) => {
        await announceSitePublished(trx, {
          accountId: account.accountId,
          siteId,
          buildId: 'bld_2',
          url: 'https://shop-live.example',
          pages: 3,
          at,
        })
        throw new Error('the release could not be stored')
      }),
    ).rejects.toThrow()
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.requests).toHaveLength(1)
  })

  it('backlink.detected: the Webmention repository call delivers it', async () => {
    const { account, siteId, receiver, secret } = await subscriber('shop-links.example')
    await app.db.transaction().execute((trx) =>
      recordEvent(trx, {
        accountId: account.accountId,
        siteId,
        type: 'backlink.detected',
        data: {
          backlink_id: 'bl_1',
          site_id: siteId,
          source: 'https://blog.example/post',
          target: 'https://shop-links.example/',
          detected_at: new Date().toISOString(),
        },
      }),
    )
    await receiver.waitFor(1)
    expect(verified(secret, receiver, 0)).toMatchObject({
      type: 'backlink.detected',
      data: { source: 'https://blog.example/post', target: 'https://shop-links.example/' },
    })
  })

  it("never sends one account's events to another account's endpoints", async () => {
    const first = await subscriber('shop-one.example')
    const second = await subscriber('shop-two.example')
    await app.db.transaction().execute((trx) =>
      announceSitePublished(trx, {
        accountId: first.account.accountId,
        siteId: first.siteId,
        buildId: 'bld_x',
        url: 'https://shop-one.example',
        pages: 1,
        at: new Date(),
      }),
    )
    await first.receiver.waitFor(1)
    await new Promise((r) => setTimeout(r, 300))
    expect(second.receiver.requests).toHaveLength(0)
  })
})
