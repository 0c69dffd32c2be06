import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { claimKey, openStoredBody } from '../../src/rest/idempotency-store.ts'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'

const { app } = await buildTestApp()

const create = (headers: Record<string, string>, key: string | undefined, payload: object) =>
  app.inject({
    method: 'POST',
    url: '/v1/tokens',
    headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload,
  })

const tokenCount = async (accountId: string) =>
  Number(
    (
      await app.db
        .selectFrom('api_tokens')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('Idempotency-Key on POST', () => {
  it('replays the stored answer for the same key and body, byte for byte, with Idempotent-Replayed', async () => {
    const owner = await makeAccount(app, 'pro')
    const first = await create(owner.headers, 'key-1', { name: 'a', scopes: ['read:sites'] })
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    // The same body with its keys in another order is the same request.
    const again = await create(owner.headers, 'key-1', { scopes: ['read:sites'], name: 'a' })
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(first.body)
    expect(again.headers['location']).toBe(first.headers['location'])
    expect(again.headers['etag']).toBe(first.headers['etag'])
    expect(again.headers['content-type']).toBe(first.headers['content-type'])
    expect(await tokenCount(owner.accountId)).toBe(2)
  })

  it('answers 422 idempotency_key_reused for another body and changes nothing', async () => {
    const owner = await makeAccount(app, 'pro')
    await create(owner.headers, 'key-2', { name: 'a', scopes: ['read:sites'] })
    const other = await create(owner.headers, 'key-2', { name: 'b', scopes: ['read:sites'] })
    expect(other.statusCode).toBe(422)
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' })
    expect(await tokenCount(owner.accountId)).toBe(2)
  })

  it('answers 409 idempotency_in_progress while the first request runs, and lets a dead one be retried', async () => {
    const owner = await makeAccount(app, 'pro')
    const payload = { name: 'c', scopes: ['read:sites'] }
    const probe = await create(owner.headers, 'probe', payload)
    const hash = (await app.db.selectFrom('idempotency_keys').select('request_hash').where('key', '=', 'probe').executeTakeFirstOrThrow())
      .request_hash
    expect(probe.statusCode).toBe(201)
    // Another instance is processing the same request under key-3 (its hash differs from probe's only by nothing: same path and body).
    expect(await claimKey(app.db, { accountId: owner.accountId, caller: owner.tokenId }, 'key-3', hash)).toEqual({ claimed: true })
    const busy = await create(owner.headers, 'key-3', payload)
    expect(busy.statusCode).toBe(409)
    expect(busy.json()).toMatchObject({ code: 'idempotency_in_progress' })
    expect(busy.headers['retry-after']).toBe('1')
    // Its process died: after the lease the key may be taken again.
    await app.db
      .updateTable('idempotency_keys')
      .set({ lease_until: new Date(Date.now() - 1000) })
      .where('key', '=', 'key-3')
      .execute()
    const retried = await create(owner.headers, 'key-3', payload)
    expect(retried.statusCode).toBe(201)
  })

  it('keeps keys per account and for a day', async () => {
    const one = await makeAccount(app, 'pro')
    const two = await makeAccount(app, 'pro')
    const payload = { name: 'd', scopes: ['read:sites'] }
    const a = await create(one.headers, 'shared', payload)
    const b = await create(two.headers, 'shared', payload)
    expect(b.statusCode).toBe(201)
    expect(b.headers['idempotent-replayed']).toBeUndefined()
    expect(b.json().id).not.toBe(a.json().id)
    await app.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3600_000) } as never)
      .where('account_id', '=', one.accountId)
      .execute()
    const later = await create(one.headers, 'shared', { ...payload, name: 'e' })
    expect(later.statusCode).toBe(201)
  })

  it('refuses a key longer than 255 characters with 400 and accepts 255', async () => {
    const owner = await makeAccount(app, 'pro')
    const long = await create(owner.headers, 'k'.repeat(256), { name: 'f', scopes: ['read:sites'] })
    expect(long.statusCode).toBe(400)
    expect((await create(owner.headers, 'k'.repeat(255), { name: 'f', scopes: ['read:sites'] })).statusCode).toBe(201)
  })

  it('stores the answer in the transaction of the change, so no crash between them lets a retry run the change twice', async () => {
    const owner = await makeAccount(app, 'pro')
    const first = await create(owner.headers, 'atomic', { name: 'h', scopes: ['read:sites'] })
    expect(first.statusCode).toBe(201)
    const created = first.json() as { id: string }
    // PostgreSQL's xmin names the transaction that wrote a row: the token, its audit record and
    // the stored answer were written by one.
    const writer = async (query: ReturnType<typeof sql<{ x: string }>>) => (await query.execute(app.db)).rows[0]?.x
    const token = await writer(sql<{ x: string }>`select xmin::text as x from api_tokens where id = ${created.id}`)
    expect(token).toBeDefined()
    expect(
      await writer(
        sql<{ x: string }>`select xmin::text as x from idempotency_keys where account_id = ${owner.accountId} and key = 'atomic'`,
      ),
    ).toBe(token)
    expect(
      await writer(
        sql<{ x: string }>`select xmin::text as x from audit_log where account_id = ${owner.accountId} and operation = 'tokens.create'`,
      ),
    ).toBe(token)
    const stored = await app.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .where('key', '=', 'atomic')
      .executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ state: 'done', status: 201, caller: owner.tokenId })
    // The body is kept sealed (it holds the token's secret), and opens to the very answer.
    expect(openStoredBody(app.keyring, { accountId: owner.accountId, caller: owner.tokenId }, 'atomic', stored.body!)).toBe(first.body)
    expect(JSON.parse(stored.headers!)).toEqual({
      'content-type': first.headers['content-type'],
      location: first.headers['location'],
      etag: first.headers['etag'],
    })

    // Even with its lease long over, a retry replays the answer and creates nothing.
    await app.db
      .updateTable('idempotency_keys')
      .set({ lease_until: new Date(Date.now() - 3_600_000) })
      .where('key', '=', 'atomic')
      .execute()
    const retried = await create(owner.headers, 'atomic', { name: 'h', scopes: ['read:sites'] })
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.body).toBe(first.body)
    expect(await tokenCount(owner.accountId)).toBe(2)
  })

  it('a change that fails commits no answer of success: its 4xx is stored and replayed as such', async () => {
    const owner = await makeAccount(app, 'pro')
    const site = (
      await app.inject({
        method: 'POST',
        url: '/v1/sites',
        headers: { ...owner.headers, 'idempotency-key': 'site-1' },
        payload: { name: 'Shop' },
      })
    ).json() as { id: string }
    const page = { path: '/', title: 'Home' }
    expect(
      (await app.inject({ method: 'POST', url: `/v1/sites/${site.id}/pages`, headers: owner.headers, payload: page })).statusCode,
    ).toBe(201)
    const taken = await app.inject({
      method: 'POST',
      url: `/v1/sites/${site.id}/pages`,
      headers: { ...owner.headers, 'idempotency-key': 'page-1' },
      payload: page,
    })
    expect(taken.statusCode).toBe(409)
    const again = await app.inject({
      method: 'POST',
      url: `/v1/sites/${site.id}/pages`,
      headers: { ...owner.headers, 'idempotency-key': 'page-1' },
      payload: page,
    })
    expect(again.statusCode).toBe(409)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.headers['location']).toBeUndefined()
  })

  it('stores 4xx answers of the route but not the refusals of the frame before it', async () => {
    const owner = await makeAccount(app, 'pro', ['manage:tokens'])
    const refused = await create(owner.headers, 'key-4', { name: 'g', scopes: ['write:pages'] })
    expect(refused.statusCode).toBe(403)
    const replayed = await create(owner.headers, 'key-4', { name: 'g', scopes: ['write:pages'] })
    expect(replayed.statusCode).toBe(403)
    expect(replayed.headers['idempotent-replayed']).toBe('true')
  })
})
