import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { syncCatalogue } from '../../src/domain/billing/catalogue.ts'
import { createStripe } from '../../src/domain/billing/stripe-client.ts'
import { startFakeStripe } from '../helpers/fake-stripe.ts'
import { phonePhoto } from '../helpers/images.ts'
import { startS3Server } from '../helpers/s3-server.ts'
import { startLiveApp } from '../identity/helpers.ts'
import { eventually } from '../helpers/polling.ts'
import { makeTeam } from '../teams/helpers.ts'
import { formBrowser, httpClient } from './http.ts'

// What the erase of an account (DESIGN.md 19) reaches outside the database: its media in
// S3-compatible storage (s3rver on loopback) and its subscription at Stripe (the fake on loopback,
// through the official SDK). The deletion stops the subscription's renewal, a restore lets it renew
// again, and the erase job cancels it and empties the bucket of the account's files.
const SECRET_KEY = 'sk_test_fake_erase'
const WEBHOOK_SECRET = 'whsec_ZXJhc2UtdGVzdC1zZWNyZXQ'
const s3 = await startS3Server('erase-test')
const fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET })
const { app, base } = await startLiveApp({
  env: {
    ...s3.env,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: fake.url,
    RATE_LIMIT_FACTOR: '10',
  },
})
fake.state.webhookUrl = `${base}/webhooks/stripe`
app.billing.deps.now = () => new Date(fake.state.clock * 1000)
await syncCatalogue(createStripe({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: fake.url })!)
const { keysIn } = s3

describe('erasing an account outside the database', () => {
  it('stops the renewal while suspended, renews again on restore, then cancels at Stripe and empties the bucket', async () => {
    const team = await makeTeam(app, 'free')
    const api = httpClient(base, team.owner.api.authorization)
    // A paid plan, through Checkout on the fake.
    const started = await api('POST', '/v1/account/billing/checkout', { plan: 'pro', interval: 'month' })
    expect(started.status, started.text).toBe(200)
    const session = await fake.completeCheckout(new URL(started.json.url).pathname.split('/').pop()!)
    const subscription = fake.subscriptionOfCustomer(session['customer'])!
    await eventually(async () => expect((await api('GET', '/v1/account/billing')).json).toMatchObject({ plan: 'pro', status: 'active' }))
    // Photos, in the bucket.
    const mediaIds: string[] = []
    for (const seed of [0, 80]) {
      const form = new FormData()
      form.append('file', new Blob([new Uint8Array(await phonePhoto(seed))], { type: 'image/jpeg' }), `photo-${seed}.jpg`)
      const res = await fetch(`${base}/v1/media`, { method: 'POST', headers: { authorization: team.owner.api.authorization }, body: form })
      expect(res.status).toBe(201)
      mediaIds.push(((await res.json()) as { id: string }).id)
    }
    for (const id of mediaIds) expect((await keysIn(`media/${id}/`)).length).toBeGreaterThan(0)
    // Another account's photo stays whatever happens to this one.
    const other = await makeTeam(app, 'pro')
    const otherForm = new FormData()
    otherForm.append('file', new Blob([new Uint8Array(await phonePhoto(0))], { type: 'image/jpeg' }), 'theirs.jpg')
    const theirs = await fetch(`${base}/v1/media`, {
      method: 'POST',
      headers: { authorization: other.owner.api.authorization },
      body: otherForm,
    })
    const theirsId = ((await theirs.json()) as { id: string }).id

    // Deleted: nothing renews while the account waits.
    const owner = formBrowser(base, team.owner.cookie)
    await owner.get('/app/your-data')
    expect((await owner.post('/app/your-data/delete', { confirm: team.owner.email })).status).toBe(303)
    expect(fake.subscriptions.get(subscription['id'])).toMatchObject({ status: 'active', cancel_at_period_end: true })
    // Restored: it renews again, as before.
    await owner.get('/app')
    expect((await owner.post('/app/your-data/restore')).status).toBe(303)
    expect(fake.subscriptions.get(subscription['id'])).toMatchObject({ status: 'active', cancel_at_period_end: false })
    expect(fake.subscriptions.get(subscription['id'])!['metadata']['held_for_deletion']).toBeUndefined()

    // Deleted again, and the 14 days pass: the erase job runs.
    await owner.get('/app/your-data')
    expect((await owner.post('/app/your-data/delete', { confirm: team.owner.email })).status).toBe(303)
    await app.db.updateTable('accounts').set({ erase_after: new Date() }).where('id', '=', team.accountId).execute()
    await sql`update jobs set run_at = now() where name = 'account.erase' and payload->>'account_id' = ${team.accountId}`.execute(app.db)
    app.jobs.wake()
    await eventually(async () => {
      const account = await app.db.selectFrom('accounts').select('erased_at').where('id', '=', team.accountId).executeTakeFirstOrThrow()
      expect(account.erased_at).toBeInstanceOf(Date)
    }, 30_000)

    // Cancelled at once at Stripe; its last event, which came during or after the erase, left nothing behind.
    expect(fake.subscriptions.get(subscription['id'])).toMatchObject({ status: 'canceled' })
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subscription['id']}`)).toBe(true)
    const deleted = fake.answers.filter((a) => a.type === 'customer.subscription.deleted').at(-1)
    expect(deleted?.status).toBe(200)
    for (const table of ['account_billing', 'stripe_events', 'events', 'audit_log', 'account_add_ons', 'media']) {
      const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where account_id = ${team.accountId}`.execute(
        app.db,
      )
      expect(Number(rows[0]!.n), table).toBe(0)
    }
    // The bucket holds nothing of the account; the other account's photo is still there.
    for (const id of mediaIds) expect(await keysIn(`media/${id}/`)).toEqual([])
    expect((await keysIn(`media/${theirsId}/`)).length).toBeGreaterThan(0)
  })
})
