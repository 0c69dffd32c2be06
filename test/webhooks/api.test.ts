import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { buildTestApp } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.ts'
import { makeAccount, type TestAccount } from '../rest/helpers.ts'
import { until } from '../helpers/polling.ts'

const { app } = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } })

type Json = Record<string, any>

const call = (
  account: TestAccount | undefined,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method,
    url,
    headers: { ...(account?.headers ?? {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  })

function expectProblem(res: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const body = res.json() as Json
  expect(body).toMatchObject({ status, code })
  expect(res.body).not.toMatch(/stack|node_modules|at .*\.ts:\d+/)
  return body
}

async function createHook(account: TestAccount, body: Json) {
  const res = await call(account, 'POST', '/v1/webhooks', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as Json
}

const publish = (accountId: string) =>
  app.db.transaction().execute((trx) =>
    recordEvent(trx, {
      accountId,
      siteId: 'site_api',
      type: 'site.published',
      data: { site_id: 'site_api', url: 'https://example.com/' },
    }),
  )

const verify = (secret: string, request: ReceivedRequest) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Json

describe('/v1/webhooks: access', () => {
  it('needs a token, the manage:webhooks scope and plan pro or above', async () => {
    const noToken = await call(undefined, 'GET', '/v1/webhooks')
    expect(noToken.statusCode).toBe(401)
    expect(noToken.headers['www-authenticate']).toMatch(/^Bearer/)
    for (const plan of ['free', 'lite', 'plus'] as const) {
      const account = await makeAccount(app, plan)
      expectProblem(await call(account, 'GET', '/v1/webhooks'), 403, 'plan_required')
      expectProblem(await call(account, 'POST', '/v1/webhooks', { url: 'https://example.com/hook' }), 403, 'plan_required')
    }
    const unscoped = await makeAccount(app, 'pro', ['read:sites'])
    expectProblem(await call(unscoped, 'GET', '/v1/webhooks'), 403, 'insufficient_scope')
    const max = await makeAccount(app, 'max')
    expect((await call(max, 'GET', '/v1/webhooks')).statusCode).toBe(200)
  })
})

describe('/v1/webhooks: endpoints', () => {
  it('creates an endpoint showing its secret once, lists and reads it without the secret, and delivers to it', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const res = await call(account, 'POST', '/v1/webhooks', {
      url: receiver.url,
      description: 'CRM',
      event_types: ['site.published', 'lead.received'],
    })
    expect(res.statusCode, res.body).toBe(201)
    const created = res.json() as Json
    expect(res.headers['location']).toBe(`/v1/webhooks/${created.id}`)
    expect(res.headers['etag']).toBeDefined()
    expect(created).toMatchObject({
      url: receiver.url,
      description: 'CRM',
      event_types: ['site.published', 'lead.received'],
      enabled: true,
      disabled_reason: null,
    })
    expect(created.id).toMatch(/^whep_/)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32)

    const list = (await call(account, 'GET', '/v1/webhooks')).json() as Json
    expect(list.meta).toEqual({ total: 1, page: 1, per_page: 20 })
    expect(list.data[0]).not.toHaveProperty('secret')
    const item = await call(account, 'GET', `/v1/webhooks/${created.id}`)
    expect(item.statusCode).toBe(200)
    const { secret, ...withoutSecret } = created
    expect(item.json()).toEqual(withoutSecret)
    const stored = await app.db
      .selectFrom('webhook_endpoints')
      .select('secret_sealed')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    expect(stored.secret_sealed).not.toContain(secret.slice(6, 20))

    const eventId = await publish(account.accountId)
    const [request] = await receiver.waitFor(1)
    expect(request!.headers['webhook-id']).toBe(eventId)
    expect(verify(secret, request!)).toMatchObject({ type: 'site.published', data: { site_id: 'site_api' } })
  })

  it('refuses bad input with a clear 400', async () => {
    const account = await makeAccount(app)
    expectProblem(
      await call(account, 'POST', '/v1/webhooks', { url: 'https://example.com/hook', event_types: ['site.deleted'] }),
      400,
      'validation_failed',
    )
    expectProblem(await call(account, 'POST', '/v1/webhooks', { url: 'ftp://example.com/hook' }), 400, 'invalid_webhook_url')
    expectProblem(await call(account, 'POST', '/v1/webhooks', { url: 'not a url' }), 400, 'invalid_webhook_url')
    expectProblem(await call(account, 'POST', '/v1/webhooks', { url: 'https://user:pw@example.com/hook' }), 400, 'invalid_webhook_url')
    // The metadata address stays refused even where private networks are allowed.
    expectProblem(await call(account, 'POST', '/v1/webhooks', { url: 'http://169.254.169.254/latest' }), 400, 'invalid_webhook_url')
    expectProblem(
      await call(account, 'POST', '/v1/webhooks', { url: 'https://example.com/hook', secret: 'mine' }),
      400,
      'validation_failed',
    )
    expectProblem(await call(account, 'POST', '/v1/webhooks', { url: `https://example.com/${'a'.repeat(500)}` }), 400, 'validation_failed')
    expectProblem(await call(account, 'POST', '/v1/webhooks', {}), 400, 'validation_failed')
    const created = await createHook(account, { url: 'https://example.com/hook' })
    expectProblem(await call(account, 'PATCH', `/v1/webhooks/${created.id}`, {}), 400, 'validation_failed')
    expectProblem(
      await call(account, 'PATCH', `/v1/webhooks/${created.id}`, { event_types: ['lead.received', 'lead.received'] }),
      400,
      'validation_failed',
    )
    expect((await call(account, 'GET', '/v1/webhooks')).json().meta.total).toBe(1)
  })

  it('changes and deletes an endpoint, honouring If-Match', async () => {
    const account = await makeAccount(app)
    const created = await createHook(account, { url: 'https://example.com/hook' })
    const read = await call(account, 'GET', `/v1/webhooks/${created.id}`)
    const etag = read.headers['etag'] as string
    const patched = await call(
      account,
      'PATCH',
      `/v1/webhooks/${created.id}`,
      { enabled: false, event_types: ['seo.report.ready'], description: 'paused' },
      { 'if-match': etag },
    )
    expect(patched.statusCode, patched.body).toBe(200)
    expect(patched.json()).toMatchObject({ enabled: false, event_types: ['seo.report.ready'], description: 'paused' })
    expectProblem(
      await call(account, 'PATCH', `/v1/webhooks/${created.id}`, { enabled: true }, { 'if-match': etag }),
      412,
      'precondition_failed',
    )
    expectProblem(await call(account, 'DELETE', `/v1/webhooks/${created.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed')
    expect((await call(account, 'DELETE', `/v1/webhooks/${created.id}`)).statusCode).toBe(204)
    expectProblem(await call(account, 'GET', `/v1/webhooks/${created.id}`), 404, 'not_found')
  })

  it("hides another account's endpoints and dead letters behind 404", async () => {
    const owner = await makeAccount(app)
    const stranger = await makeAccount(app)
    const receiver = await startReceiver({ status: 400 })
    const created = await createHook(owner, { url: receiver.url })
    await publish(owner.accountId)
    const dead = await until(
      async () => ((await call(owner, 'GET', '/v1/webhooks/dead-letters')).json() as Json).data[0] as Json | undefined,
    )
    const id = created.id as string
    for (const [method, url, body] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['POST', `/v1/webhooks/${id}/test`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['POST', `/v1/webhooks/${id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString() }],
      ['POST', `/v1/webhooks/dead-letters/${dead.id}/replay`],
    ] as const) {
      expectProblem(await call(stranger, method, url, body), 404, 'not_found')
    }
    expect((await call(stranger, 'GET', '/v1/webhooks')).json().meta.total).toBe(0)
    expect((await call(stranger, 'GET', '/v1/webhooks/dead-letters')).json().meta.total).toBe(0)
    expect((await call(owner, 'GET', `/v1/webhooks/${id}`)).statusCode).toBe(200)
  })
})

describe('/v1/webhooks: secrets, tests, attempts, dead letters and replays', () => {
  it('rotates the secret once per overlap; both secrets sign meanwhile', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const created = await createHook(account, { url: receiver.url })
    const rotated = await call(account, 'POST', `/v1/webhooks/${created.id}/rotate-secret`)
    expect(rotated.statusCode, rotated.body).toBe(200)
    const { secret, previous_secret_expires_at: until24h } = rotated.json() as Json
    expect(secret).toMatch(/^whsec_/)
    expect(new Date(until24h).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000)
    const again = expectProblem(await call(account, 'POST', `/v1/webhooks/${created.id}/rotate-secret`), 409, 'rotation_in_progress')
    expect(again.detail).toContain(until24h)

    const test = await call(account, 'POST', `/v1/webhooks/${created.id}/test`)
    expect(test.statusCode, test.body).toBe(202)
    const [request] = await receiver.waitFor(1)
    expect(request!.headers['webhook-id']).toBe(test.json().event_id)
    expect(verify(created.secret, request!)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: created.id } })
    expect(verify(secret, request!)).toMatchObject({ type: 'webhook.test' })
  })

  it('lists the attempts of an endpoint with status, duration and the start of the answer', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver({ status: 200, body: 'x'.repeat(3000) })
    const created = await createHook(account, { url: receiver.url })
    const { delivery_id: deliveryId } = (await call(account, 'POST', `/v1/webhooks/${created.id}/test`)).json() as Json
    const attempts = await until(async () => {
      const body = (await call(account, 'GET', `/v1/webhooks/${created.id}/deliveries`)).json() as Json
      return body.data.length > 0 ? body : undefined
    })
    const [attempt] = attempts.data as Json[]
    expect(attempt).toMatchObject({ delivery_id: deliveryId, type: 'webhook.test', attempt: 1, status: 200, error: null })
    expect(attempt!.response).toBe('x'.repeat(1024))
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(0)
    expect(new Date(attempt!.attempted_at).getTime()).toBeLessThanOrEqual(Date.now())
  })

  it("keeps a receiver's answer sealed at rest and shows it through the deliveries API", async () => {
    const account = await makeAccount(app)
    // A receiver that echoes the payload, personal data included.
    const receiver = await startReceiver({ status: 200, echo: true })
    const created = await createHook(account, { url: receiver.url, event_types: ['lead.received'] })
    await app.db.transaction().execute((trx) =>
      recordEvent(
        trx,
        {
          accountId: account.accountId,
          siteId: 'site_api',
          type: 'lead.received',
          data: { lead_id: 'lead_echo', site_id: 'site_api', email: 'echo@example.com', name: 'Echo Person' },
        },
        app.keyring,
      ),
    )
    const [request] = await receiver.waitFor(1)
    expect(verify(created.secret, request!)).toMatchObject({ data: { email: 'echo@example.com' } })
    const attempts = await until(async () => {
      const body = (await call(account, 'GET', `/v1/webhooks/${created.id}/deliveries`)).json() as Json
      return body.data.length > 0 ? body : undefined
    })
    expect(attempts.data[0]).toMatchObject({ type: 'lead.received', status: 200, response: request!.body })
    const stored = await app.db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', created.id).execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]!.response).toMatch(/^v1\./)
    expect(JSON.stringify(stored)).not.toMatch(/echo@example\.com|Echo Person/)
  })

  it('holds back deliveries after a downgrade as plan_required dead letters, replayed after an upgrade', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const created = await createHook(account, { url: receiver.url })
    const setPlan = (plan: Plan) => updateAccount(app.db, account.accountId, { plan })
    await setPlan('plus')
    const eventId = await publish(account.accountId)
    const dead = await until(async () => {
      const row = await app.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirst()
      return row?.state === 'dead' ? row : undefined
    })
    expect(dead).toMatchObject({
      endpoint_id: created.id,
      attempts: 0,
      last_status: null,
      last_error: 'plan_required: webhooks need plan pro or above',
    })
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.requests).toHaveLength(0)
    // Below pro the account cannot see or replay them through the API.
    expectProblem(await call(account, 'GET', '/v1/webhooks/dead-letters'), 403, 'plan_required')

    await setPlan('pro')
    const letters = (await call(account, 'GET', '/v1/webhooks/dead-letters')).json() as Json
    expect(letters.data).toEqual([
      expect.objectContaining({
        id: dead.id,
        event_id: eventId,
        attempts: 0,
        last_error: 'plan_required: webhooks need plan pro or above',
      }),
    ])
    expect((await call(account, 'POST', `/v1/webhooks/dead-letters/${dead.id}/replay`)).statusCode).toBe(202)
    const [request] = await receiver.waitFor(1)
    expect(request!.headers['webhook-id']).toBe(eventId)
    expect(verify(created.secret, request!)).toMatchObject({ type: 'site.published' })
  })

  it('lists dead letters and replays one to a fixed receiver with the same webhook-id', async () => {
    const account = await makeAccount(app)
    const broken = await startReceiver({ status: 422, body: 'unprocessable' })
    const created = await createHook(account, { url: broken.url })
    const eventId = await publish(account.accountId)
    const letters = await until(async () => {
      const body = (await call(account, 'GET', '/v1/webhooks/dead-letters')).json() as Json
      return body.data.length > 0 ? body : undefined
    })
    const letter = letters.data[0] as Json
    expect(Object.keys(letter).sort()).toEqual([
      'attempts',
      'endpoint_id',
      'event_id',
      'failed_at',
      'id',
      'last_error',
      'last_status',
      'type',
    ])
    expect(letter).toMatchObject({
      endpoint_id: created.id,
      event_id: eventId,
      type: 'site.published',
      attempts: 1,
      last_status: 422,
      last_error: 'the endpoint answered 422',
    })

    const fixed = await startReceiver()
    expect((await call(account, 'PATCH', `/v1/webhooks/${created.id}`, { url: fixed.url })).statusCode).toBe(200)
    const replay = await call(account, 'POST', `/v1/webhooks/dead-letters/${letter.id}/replay`)
    expect(replay.statusCode, replay.body).toBe(202)
    expect(replay.json().delivery_id).toMatch(/^dlv_/)
    const [request] = await fixed.waitFor(1)
    expect(request!.headers['webhook-id']).toBe(eventId)
    expect((await call(account, 'GET', '/v1/webhooks/dead-letters')).json().meta.total).toBe(0)
    expectProblem(await call(account, 'POST', `/v1/webhooks/dead-letters/${letter.id}/replay`), 404, 'not_found')
  })

  it('replays a time window, refusing inverted, over-long and disabled ones', async () => {
    const account = await makeAccount(app)
    const receiver = await startReceiver()
    const created = await createHook(account, { url: receiver.url })
    const since = new Date(Date.now() - 60_000).toISOString()
    const ids = [await publish(account.accountId), await publish(account.accountId)]
    await receiver.waitFor(2)
    const url = `/v1/webhooks/${created.id}/replay`
    expectProblem(await call(account, 'POST', url, { since: new Date().toISOString(), until: since }), 400, 'invalid_replay_window')
    expectProblem(
      await call(account, 'POST', url, { since: new Date(Date.now() - 31 * 86_400_000).toISOString() }),
      400,
      'invalid_replay_window',
    )
    expectProblem(await call(account, 'POST', url, { since: 'yesterday' }), 400, 'validation_failed')
    const res = await call(account, 'POST', url, { since })
    expect(res.statusCode, res.body).toBe(202)
    expect(res.json()).toEqual({ replayed: 2 })
    const requests = await receiver.waitFor(4)
    expect(
      requests
        .slice(2)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...ids].sort())

    await call(account, 'PATCH', `/v1/webhooks/${created.id}`, { enabled: false })
    expectProblem(await call(account, 'POST', url, { since }), 409, 'endpoint_disabled')
    expectProblem(await call(account, 'POST', `/v1/webhooks/${created.id}/test`), 409, 'endpoint_disabled')
  })
})

describe('/v1/webhooks outside production without OUTBOUND_ALLOW_PRIVATE_NETWORKS', () => {
  it('refuses a local receiver with a message naming the setting that allows it', async () => {
    const { app: plain } = await buildTestApp()
    const account = await makeAccount(plain)
    const res = await plain.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: account.headers,
      payload: { url: 'http://127.0.0.1:4555/hook' },
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toMatchObject({
      code: 'invalid_webhook_url',
      detail: expect.stringMatching(/port.*OUTBOUND_ALLOW_PRIVATE_NETWORKS=true/),
    })
    const portless = await plain.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: account.headers,
      payload: { url: 'http://127.0.0.1/hook' },
    })
    expect(portless.json()).toMatchObject({
      code: 'invalid_webhook_url',
      detail: expect.stringMatching(/public internet address.*OUTBOUND_ALLOW_PRIVATE_NETWORKS=true/),
    })
    // http itself is accepted whenever NODE_ENV is not production.
    const http = await plain.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: account.headers,
      payload: { url: 'http://hooks.example.invalid/endpoint' },
    })
    expect(http.statusCode, http.body).toBe(201)
  })
})

// Production refuses a memory:// database, and an embedded one on disk takes long to build here:
// on the embedded driver the rule itself is tested in endpoint-url.unit.test.ts.
describe.runIf(onPostgres)('/v1/webhooks in production', () => {
  it('accepts only https URLs on the public internet', async () => {
    const { app: production } = await buildTestApp({ databaseUrl: await freshDatabaseUrl(), env: { NODE_ENV: 'production' } })
    const account = await makeAccount(production)
    const post = (url: string) => production.inject({ method: 'POST', url: '/v1/webhooks', headers: account.headers, payload: { url } })
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://example.com:8443/hook',
      'https://169.254.169.254/',
    ]) {
      const res = await post(url)
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400)
      expect(res.json()).toMatchObject({ code: 'invalid_webhook_url' })
    }
    const ok = await post('https://hooks.example.invalid/endpoint')
    expect(ok.statusCode, ok.body).toBe(201)
  })
})
