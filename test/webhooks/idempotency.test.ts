import { sql } from 'kysely'
import { openStoredBody } from '../../src/rest/idempotency-store.ts'
import { describe, expect, it } from 'vitest'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'

// The POSTs of webhooks, social accounts and posts, and audits store their Idempotency-Key answer
// in the transaction of their change: a retry with the key replays that answer and never runs
// the change twice, even once the key's lease is over. No job runs here: only what the calls
// commit is looked at.

const { app } = await buildTestApp({ env: { JOB_CONCURRENCY: '0', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })

type Json = Record<string, any>

const post = (account: TestAccount, url: string, key: string, payload?: Json) =>
  app.inject({
    method: 'POST',
    url,
    headers: { ...account.headers, 'idempotency-key': key },
    ...(payload === undefined ? {} : { payload }),
  })

/** The transaction that last wrote the row (PostgreSQL's xmin). */
async function writer(query: ReturnType<typeof sql<{ x: string }>>): Promise<string | undefined> {
  return (await query.execute(app.db)).rows[0]?.x
}

const keyWriter = (account: TestAccount, key: string) =>
  writer(sql<{ x: string }>`select xmin::text as x from idempotency_keys where account_id = ${account.accountId} and key = ${key}`)
const auditWriter = (account: TestAccount, operation: string) =>
  writer(sql<{ x: string }>`select xmin::text as x from audit_log where account_id = ${account.accountId} and operation = ${operation}`)

async function storedAnswer(account: TestAccount, key: string) {
  const stored = await app.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', account.accountId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow()
  // The body is kept sealed (it may hold a secret shown once): opened here as a replay opens it.
  const owner = { accountId: account.accountId, caller: account.tokenId }
  const body = stored.body === null ? null : openStoredBody(app.keyring, owner, key, stored.body)
  return { ...stored, body, headers: JSON.parse(stored.headers ?? '{}') as Record<string, string> }
}

/** Lets the key's lease run out, as after a crash of the instance that claimed it. */
const leaseOver = (account: TestAccount, key: string) =>
  app.db
    .updateTable('idempotency_keys')
    .set({ lease_until: new Date(Date.now() - 3_600_000) })
    .where('account_id', '=', account.accountId)
    .where('key', '=', key)
    .execute()

describe('Idempotency-Key on the POSTs of webhooks, social and audits', () => {
  it('creating a webhook endpoint commits the endpoint, its audit record and the stored answer together; a retry replays the secret', async () => {
    const account = await makeAccount(app)
    const body = { url: 'http://127.0.0.1:9/hook', description: 'once' }
    const first = await post(account, '/v1/webhooks', 'hook-1', body)
    expect(first.statusCode, first.body).toBe(201)
    const created = first.json() as Json
    const endpoint = await writer(sql<{ x: string }>`select xmin::text as x from webhook_endpoints where id = ${created.id}`)
    expect(endpoint).toBeDefined()
    expect(await keyWriter(account, 'hook-1')).toBe(endpoint)
    expect(await auditWriter(account, 'webhooks.create')).toBe(endpoint)
    const stored = await storedAnswer(account, 'hook-1')
    expect(stored).toMatchObject({ state: 'done', status: 201, body: first.body })
    expect(stored.headers).toEqual({
      'content-type': first.headers['content-type'],
      location: `/v1/webhooks/${created.id}`,
      etag: first.headers['etag'],
    })

    await leaseOver(account, 'hook-1')
    const retried = await post(account, '/v1/webhooks', 'hook-1', body)
    expect(retried.statusCode).toBe(201)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.headers['location']).toBe(first.headers['location'])
    expect(retried.headers['etag']).toBe(first.headers['etag'])
    expect(retried.body).toBe(first.body)
    const endpoints = await app.db.selectFrom('webhook_endpoints').select('id').where('account_id', '=', account.accountId).execute()
    expect(endpoints).toEqual([{ id: created.id }])
  })

  it('rotate-secret, test, replay and dead-letter replay replay their first answer', async () => {
    const account = await makeAccount(app)
    const created = (await post(account, '/v1/webhooks', 'hook-2', { url: 'http://127.0.0.1:9/hook' })).json() as Json

    const rotated = await post(account, `/v1/webhooks/${created.id}/rotate-secret`, 'rotate-1')
    expect(rotated.statusCode, rotated.body).toBe(200)
    expect(rotated.headers['etag']).toBeUndefined()
    const row = await writer(sql<{ x: string }>`select xmin::text as x from webhook_endpoints where id = ${created.id}`)
    expect(await keyWriter(account, 'rotate-1')).toBe(row)
    expect(await auditWriter(account, 'webhooks.rotateSecret')).toBe(row)
    await leaseOver(account, 'rotate-1')
    // Without the key a second rotation is refused during the overlap; with it the first answer comes back.
    const again = await post(account, `/v1/webhooks/${created.id}/rotate-secret`, 'rotate-1')
    expect(again.statusCode).toBe(200)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(rotated.body)

    const test = await post(account, `/v1/webhooks/${created.id}/test`, 'test-1')
    expect(test.statusCode, test.body).toBe(202)
    expect(test.headers['location']).toBeUndefined()
    const testAgain = await post(account, `/v1/webhooks/${created.id}/test`, 'test-1')
    expect(testAgain.statusCode).toBe(202)
    expect(testAgain.headers['idempotent-replayed']).toBe('true')
    expect(testAgain.body).toBe(test.body)
    const tests = await app.db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', account.accountId)
      .where('type', '=', 'webhook.test')
      .execute()
    expect(tests).toEqual([{ id: (test.json() as Json).event_id }])

    // A dead letter of this endpoint, replayed twice with one key, is queued once.
    const deliveryId = (test.json() as Json).delivery_id as string
    await app.db.updateTable('webhook_deliveries').set({ state: 'dead' }).where('id', '=', deliveryId).execute()
    const revived = await post(account, `/v1/webhooks/dead-letters/${deliveryId}/replay`, 'dead-1')
    expect(revived.statusCode, revived.body).toBe(202)
    expect(await keyWriter(account, 'dead-1')).toBe(await auditWriter(account, 'webhooks.replayDeadLetter'))
    const revivedAgain = await post(account, `/v1/webhooks/dead-letters/${deliveryId}/replay`, 'dead-1')
    expect(revivedAgain.statusCode).toBe(202)
    expect(revivedAgain.headers['idempotent-replayed']).toBe('true')
    expect(revivedAgain.body).toBe(revived.body)
    const deliveries = await app.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', (test.json() as Json).event_id)
      .execute()
    expect(deliveries.map((d) => d.id).sort()).toEqual([deliveryId, (revived.json() as Json).delivery_id].sort())

    const window = { since: new Date(Date.now() - 3_600_000).toISOString() }
    const replayed = await post(account, `/v1/webhooks/${created.id}/replay`, 'window-1', window)
    expect(replayed.statusCode, replayed.body).toBe(202)
    expect(await keyWriter(account, 'window-1')).toBe(await auditWriter(account, 'webhooks.replay'))
    const replayedAgain = await post(account, `/v1/webhooks/${created.id}/replay`, 'window-1', window)
    expect(replayedAgain.headers['idempotent-replayed']).toBe('true')
    expect(replayedAgain.body).toBe(replayed.body)
  })

  it('connecting a social account and scheduling a post commit with their stored answers; a retry adds nothing', async () => {
    const account = await makeAccount(app)
    const connectBody = {
      network: 'mastodon',
      server_url: 'http://127.0.0.1:9',
      handle: '@owner@example.social',
      access_token: 'token-123',
    }
    const connected = await post(account, '/v1/social-accounts', 'social-1', connectBody)
    expect(connected.statusCode, connected.body).toBe(201)
    const social = connected.json() as Json
    const socialWriter = await writer(sql<{ x: string }>`select xmin::text as x from social_accounts where id = ${social.id}`)
    expect(await keyWriter(account, 'social-1')).toBe(socialWriter)
    expect(await auditWriter(account, 'social.accounts.connect')).toBe(socialWriter)
    expect((await storedAnswer(account, 'social-1')).headers).toEqual({
      'content-type': connected.headers['content-type'],
      location: `/v1/social-accounts/${social.id}`,
      etag: connected.headers['etag'],
    })
    await leaseOver(account, 'social-1')
    const reconnected = await post(account, '/v1/social-accounts', 'social-1', connectBody)
    expect(reconnected.headers['idempotent-replayed']).toBe('true')
    expect(reconnected.body).toBe(connected.body)
    expect(await app.db.selectFrom('social_accounts').select('id').where('account_id', '=', account.accountId).execute()).toEqual([
      { id: social.id },
    ])

    const postBody = { account_id: social.id, text: 'Once only', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() }
    const scheduled = await post(account, '/v1/social-posts', 'post-1', postBody)
    expect(scheduled.statusCode, scheduled.body).toBe(201)
    const created = scheduled.json() as Json
    expect(scheduled.headers['location']).toBe(`/v1/social-posts/${created.id}`)
    const postWriter = await writer(sql<{ x: string }>`select xmin::text as x from social_posts where id = ${created.id}`)
    expect(postWriter).toBeDefined()
    expect(await keyWriter(account, 'post-1')).toBe(postWriter)
    expect(await auditWriter(account, 'social.posts.create')).toBe(postWriter)
    await leaseOver(account, 'post-1')
    const retried = await post(account, '/v1/social-posts', 'post-1', postBody)
    expect(retried.statusCode).toBe(201)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.headers['etag']).toBe(scheduled.headers['etag'])
    expect(retried.body).toBe(scheduled.body)
    expect(await app.db.selectFrom('social_posts').select('id').where('social_account_id', '=', social.id).execute()).toEqual([
      { id: created.id },
    ])
  })

  it('asking for an audit commits the queued audit with its stored 202 and Location; a retry queues no second one', async () => {
    const account = await makeAccount(app)
    const site = await createSite(app.db, { name: 'Audited', hostname: 'audited.example', accountId: account.accountId })
    const first = await post(account, `/v1/sites/${site.id}/audits`, 'audit-1')
    expect(first.statusCode, first.body).toBe(202)
    const queued = first.json() as Json
    expect(first.headers['location']).toBe(`/v1/sites/${site.id}/audits/${queued.id}`)
    expect(first.headers['etag']).toBeUndefined()
    const audit = await writer(sql<{ x: string }>`select xmin::text as x from site_audits where id = ${queued.id}`)
    expect(await keyWriter(account, 'audit-1')).toBe(audit)
    expect(await auditWriter(account, 'audits.create')).toBe(audit)
    await leaseOver(account, 'audit-1')
    const retried = await post(account, `/v1/sites/${site.id}/audits`, 'audit-1')
    expect(retried.statusCode).toBe(202)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.headers['location']).toBe(first.headers['location'])
    expect(retried.body).toBe(first.body)
    expect(await app.db.selectFrom('site_audits').select('id').where('site_id', '=', site.id).execute()).toEqual([{ id: queued.id }])
  })
})
