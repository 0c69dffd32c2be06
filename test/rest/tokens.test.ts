import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { makeAccount } from './helpers.ts'

const { app } = await buildTestApp()

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
  app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })

describe('/v1/tokens', () => {
  it('creates a token whose secret works once shown, lists it without the secret, and stores only a hash', async () => {
    const owner = await makeAccount(app, 'pro')
    const created = await call('POST', '/v1/tokens', owner.headers, {
      name: 'deploy',
      scopes: ['read:sites'],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    })
    expect(created.statusCode).toBe(201)
    const body = created.json()
    expect(body).toMatchObject({ name: 'deploy', scopes: ['read:sites'], last_used_at: null })
    expect(body.id).toMatch(/^tok_/)
    expect(body.token).toMatch(new RegExp(`^wps_${body.id}_[A-Za-z0-9_-]{43}$`))
    expect(created.headers['location']).toBe(`/v1/tokens/${body.id}`)
    expect(created.headers['etag']).toMatch(/^"[A-Za-z0-9_-]+"$/)

    const row = await app.db.selectFrom('api_tokens').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(body.token.slice(-43))

    const asNew = await call('GET', '/v1/account', { authorization: `Bearer ${body.token}` })
    expect(asNew.statusCode).toBe(200)
    const list = await call('GET', '/v1/tokens?per_page=1', owner.headers)
    expect(list.statusCode).toBe(200)
    expect(list.json()).toMatchObject({ meta: { total: 2, page: 1, per_page: 1 } })
    expect(list.json().data).toHaveLength(1)
    expect(JSON.stringify(list.json())).not.toContain('wps_')
  })

  it('refuses bad input with 400 and stores nothing', async () => {
    const owner = await makeAccount(app, 'pro')
    for (const payload of [
      { name: 'x', scopes: ['read:sites'], extra: 1 },
      { name: '', scopes: ['read:sites'] },
      { name: 'x'.repeat(101), scopes: ['read:sites'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', scopes: ['read:sites', 'read:sites'] },
      { name: 'x', scopes: ['read:sites'], expires_at: 'tomorrow' },
      { name: 'x', scopes: ['read:sites'], expires_at: new Date(Date.now() - 1000).toISOString() },
      { name: 42, scopes: ['read:sites'] },
    ]) {
      const res = await call('POST', '/v1/tokens', owner.headers, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_failed')
      expect(res.body).not.toMatch(/instancePath|anyOf|must match/)
    }
    const count = await app.db
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(1)
  })

  it('cannot grant scopes the calling token lacks', async () => {
    const owner = await makeAccount(app, 'pro', ['manage:tokens'])
    const res = await call('POST', '/v1/tokens', owner.headers, { name: 'wider', scopes: ['write:pages'] })
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('insufficient_scope')
  })

  it('rotates with a grace period: both secrets work until it ends; 0 stops the old one at once', async () => {
    const owner = await makeAccount(app, 'pro')
    const rotated = await call('POST', `/v1/tokens/${owner.tokenId}/rotate`, owner.headers, { grace_seconds: 120 })
    expect(rotated.statusCode).toBe(200)
    const body = rotated.json()
    expect(body.id).toBe(owner.tokenId)
    expect(body.token).not.toBe(owner.secret)
    expect(Date.parse(body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(100_000)
    expect((await call('GET', '/v1/account', owner.headers)).statusCode).toBe(200)
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${body.token}` })).statusCode).toBe(200)

    // The grace period over: only the new secret works.
    await app.db
      .updateTable('api_tokens')
      .set({ previous_expires_at: new Date(Date.now() - 1) })
      .where('id', '=', owner.tokenId)
      .execute()
    // Changed behind the service's back, as another instance would: a token row read in the last
    // second may still serve, so the change shows within a second.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await call('GET', '/v1/account', owner.headers)).statusCode).toBe(401)

    const next = await call('POST', `/v1/tokens/${owner.tokenId}/rotate`, { authorization: `Bearer ${body.token}` }, { grace_seconds: 0 })
    expect(next.json().previous_secret_expires_at).toBeNull()
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${body.token}` })).statusCode).toBe(401)
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${next.json().token}` })).statusCode).toBe(200)
  })

  it('rotates with the default grace of an hour when no body is sent, and refuses a grace above a day', async () => {
    const owner = await makeAccount(app, 'pro')
    const res = await call('POST', `/v1/tokens/${owner.tokenId}/rotate`, owner.headers)
    expect(res.statusCode).toBe(200)
    expect(Math.round((Date.parse(res.json().previous_secret_expires_at) - Date.now()) / 1000)).toBeGreaterThan(3590)
    const tooLong = await call(
      'POST',
      `/v1/tokens/${owner.tokenId}/rotate`,
      { authorization: `Bearer ${res.json().token}` },
      { grace_seconds: 86_401 },
    )
    expect(tooLong.statusCode).toBe(400)
  })

  it('revokes a token (both secrets), honouring If-Match; another account’s token is 404', async () => {
    const owner = await makeAccount(app, 'pro')
    const other = await makeAccount(app, 'pro')
    const created = (await call('POST', '/v1/tokens', owner.headers, { name: 'ci', scopes: ['read:sites'] })).json()

    expect((await call('DELETE', `/v1/tokens/${created.id}`, other.headers)).statusCode).toBe(404)
    expect((await call('POST', `/v1/tokens/${created.id}/rotate`, other.headers, {})).statusCode).toBe(404)
    expect((await call('DELETE', `/v1/tokens/tok_${'x'.repeat(22)}`, owner.headers)).statusCode).toBe(404)
    expect((await call('DELETE', '/v1/tokens/not-an-id', owner.headers)).statusCode).toBe(400)

    const stale = await call('DELETE', `/v1/tokens/${created.id}`, { ...owner.headers, 'if-match': '"stale"' })
    expect(stale.statusCode).toBe(412)
    expect(stale.json().code).toBe('precondition_failed')
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${created.token}` })).statusCode).toBe(200)

    const etag = (await call('GET', `/v1/tokens/${created.id}`, owner.headers)).headers['etag'] as string
    const removed = await call('DELETE', `/v1/tokens/${created.id}`, { ...owner.headers, 'if-match': etag })
    expect(removed.statusCode).toBe(204)
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${created.token}` })).statusCode).toBe(401)
    expect((await call('DELETE', `/v1/tokens/${created.id}`, owner.headers)).statusCode).toBe(404)
    expect((await call('GET', `/v1/tokens/${created.id}`, owner.headers)).statusCode).toBe(404)
  })

  it('reads one token without its secret at the Location of its creation; another account’s is 404', async () => {
    const owner = await makeAccount(app, 'pro')
    const other = await makeAccount(app, 'pro')
    const created = await call('POST', '/v1/tokens', owner.headers, { name: 'reader', scopes: ['read:sites'] })
    const location = created.headers['location'] as string
    const got = await call('GET', location, owner.headers)
    expect(got.statusCode, got.body).toBe(200)
    const { token: _secret, ...withoutSecret } = created.json()
    expect(got.json()).toEqual(withoutSecret)
    expect(got.body).not.toContain('wps_')
    expect(got.headers['etag']).toBe(created.headers['etag'])
    expect((await call('GET', location, other.headers)).statusCode).toBe(404)
    expect((await call('GET', '/v1/tokens/nope', owner.headers)).statusCode).toBe(400)
    const narrow = await makeAccount(app, 'pro', ['read:sites'])
    expect((await call('GET', `/v1/tokens/${narrow.tokenId}`, narrow.headers)).json().code).toBe('insufficient_scope')
  })

  it('keeps a token’s ETag when the token is used, so the creation’s tag still revokes it; a rotation changes it', async () => {
    const owner = await makeAccount(app, 'pro')
    const created = await call('POST', '/v1/tokens', owner.headers, { name: 'busy', scopes: ['read:sites', 'manage:tokens'] })
    const { id, token: secret } = created.json()
    const tag = created.headers['etag'] as string
    expect((await call('GET', '/v1/account', { authorization: `Bearer ${secret}` })).statusCode).toBe(200)
    // The last-used time is recorded in the background a few seconds later (tested below); as it would be:
    await app.db.updateTable('api_tokens').set({ last_used_at: new Date() }).where('id', '=', id).execute()
    const used = await call('GET', `/v1/tokens/${id}`, owner.headers)
    expect(used.json().last_used_at).not.toBeNull()
    expect(used.headers['etag']).toBe(tag)

    const rotated = await call('POST', `/v1/tokens/${id}/rotate`, owner.headers, { grace_seconds: 0 })
    expect(rotated.headers['etag']).not.toBe(tag)
    expect((await call('GET', `/v1/tokens/${id}`, owner.headers)).headers['etag']).toBe(rotated.headers['etag'])
    expect((await call('DELETE', `/v1/tokens/${id}`, { ...owner.headers, 'if-match': tag })).statusCode).toBe(412)
    expect((await call('DELETE', `/v1/tokens/${id}`, { ...owner.headers, 'if-match': rotated.headers['etag'] as string })).statusCode).toBe(
      204,
    )
  })

  it('records when a token was last used, without writing on every request', async () => {
    const owner = await makeAccount(app, 'pro')
    await call('GET', '/v1/account', owner.headers)
    await new Promise((resolve) => setTimeout(resolve, 5500))
    const row = await app.db.selectFrom('api_tokens').select('last_used_at').where('id', '=', owner.tokenId).executeTakeFirstOrThrow()
    expect(row.last_used_at).toBeInstanceOf(Date)
    expect(Date.now() - row.last_used_at!.getTime()).toBeLessThan(10_000)
  })
})
