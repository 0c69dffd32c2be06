import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { createEndpoint, PLAN_REQUIRED_ERROR, rotateSecret, updateEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { listAttempts, listDeadLetters, replayDeadLetter } from '../../src/domain/webhooks/deliveries.ts'
import { readOutbox } from '../../src/infra/mailer.ts'
import { startReceiver, type ReceivedRequest } from '../helpers/receiver.ts'
import { createAccount, startEngine } from './engine.ts'
import { until } from '../helpers/polling.ts'

const { deps } = await startEngine()
const { db, keyring } = deps

const delivery = (eventId: string) =>
  db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('created_at').execute()
const settled = (eventId: string) =>
  until(async () => {
    const rows = await delivery(eventId)
    return rows.length > 0 && rows.every((r) => r.state !== 'pending') ? rows : undefined
  })

async function endpointFor(url: string, eventTypes?: Parameters<typeof createEndpoint>[3]['eventTypes']) {
  const accountId = await createAccount(db)
  const { row, secret } = await createEndpoint(db, keyring, accountId, { url, eventTypes })
  return { accountId, endpoint: row, secret }
}

const replay = (accountId: string, deliveryId: string) => db.transaction().execute((trx) => replayDeadLetter(trx, accountId, deliveryId))
const rotate = (accountId: string, endpointId: string, now?: Date) =>
  db.transaction().execute((trx) => rotateSecret(trx, keyring, accountId, endpointId, now))

const siteEvent = (accountId: string, siteId = 'site_x') =>
  db
    .transaction()
    .execute((trx) =>
      recordEvent(trx, { accountId, siteId, type: 'site.published', data: { site_id: siteId, url: 'https://example.com/' } }),
    )

function verify(secret: string, request: ReceivedRequest) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
}

describe('webhook delivery', () => {
  it('delivers a signed event that the standardwebhooks package verifies, with personal data sealed at rest', async () => {
    const receiver = await startReceiver()
    const { accountId, secret } = await endpointFor(receiver.url)
    const eventId = await db.transaction().execute((trx) =>
      recordEvent(
        trx,
        {
          accountId,
          siteId: 'site_a',
          type: 'lead.received',
          data: { lead_id: 'lead_1', site_id: 'site_a', email: 'vera@example.com', name: 'Vera Visitor' },
        },
        keyring,
      ),
    )
    const [request] = await receiver.waitFor(1)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(request!.headers['webhook-id']).toBe(eventId)
    expect(request!.headers['content-type']).toBe('application/json')
    const payload = verify(secret, request!) as { type: string; timestamp: string; data: Record<string, unknown> }
    expect(payload).toMatchObject({ type: 'lead.received', data: { lead_id: 'lead_1', email: 'vera@example.com', name: 'Vera Visitor' } })
    expect(new Date(payload.timestamp).toString()).not.toBe('Invalid Date')
    // Tampering with the body breaks the signature.
    expect(() => verify(secret, { ...request!, body: request!.body.replace('Vera', 'Eve') })).toThrow()

    const stored = await db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow()
    expect(JSON.stringify(stored)).not.toMatch(/vera@example\.com|Vera Visitor/)
    expect(stored.personal_sealed).toMatch(/^v1\./)
    const [row] = await settled(eventId)
    expect(row).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200 })
  })

  it('delivers a burst of events to several endpoints once each, with one attempt row per delivery', async () => {
    const receivers = [await startReceiver(), await startReceiver()]
    const accountId = await createAccount(db)
    for (const receiver of receivers) await createEndpoint(db, keyring, accountId, { url: receiver.url })
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => siteEvent(accountId, `site_burst_${i}`)))
    for (const receiver of receivers) {
      await receiver.waitFor(40)
      expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids))
    }
    const rows = await until(async () => {
      const found = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', 'in', ids).execute()
      return found.length === 80 && found.every((r) => r.state === 'succeeded') ? found : undefined
    })
    expect(rows.every((r) => r.attempts === 1 && r.last_status === 200)).toBe(true)
    const attempts = await db
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'attempt'])
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
    expect(attempts).toHaveLength(80)
    expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(80)
    await new Promise((r) => setTimeout(r, 200))
    expect(receivers.map((r) => r.requests.length)).toEqual([40, 40])
  })

  it('refuses to store personal data when no keyring is given to seal it', async () => {
    const accountId = await createAccount(db)
    await expect(
      db.transaction().execute((trx) => recordEvent(trx, { accountId, type: 'lead.received', data: { email: 'a@example.com' } })),
    ).rejects.toThrow(/personal data/)
    expect(await db.selectFrom('events').select('id').where('account_id', '=', accountId).execute()).toHaveLength(0)
  })

  it('stores no event when the change that causes it rolls back', async () => {
    const accountId = await createAccount(db)
    await expect(
      db.transaction().execute(async (trx) => {
        await recordEvent(trx, { accountId, type: 'site.published', data: {} })
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await db.selectFrom('events').select('id').where('account_id', '=', accountId).execute()).toHaveLength(0)
  })

  it('sends only the types an endpoint subscribed to', async () => {
    const receiver = await startReceiver()
    const { accountId } = await endpointFor(receiver.url, ['lead.received'])
    const other = await startReceiver()
    await createEndpoint(db, keyring, accountId, { url: other.url })
    const eventId = await siteEvent(accountId)
    await other.waitFor(1)
    await settled(eventId)
    expect(receiver.requests).toHaveLength(0)
    expect(await delivery(eventId)).toHaveLength(1)
  })

  it('retries a 500 and delivers once when the receiver recovers', async () => {
    const receiver = await startReceiver()
    receiver.script({ status: 500, body: 'down for a moment' })
    const { accountId, endpoint } = await endpointFor(receiver.url)
    const eventId = await siteEvent(accountId)
    const [row] = await settled(eventId)
    expect(row).toMatchObject({ state: 'succeeded', attempts: 2, last_status: 200 })
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.requests).toHaveLength(2)
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId])
    const attempts = await listAttempts(db, endpoint.id, { limit: 10, offset: 0 }, keyring)
    expect(attempts.total).toBe(2)
    expect(attempts.items.map((a) => [a.attempt, a.status, a.response])).toEqual([
      [2, 200, 'ok'],
      [1, 500, 'down for a moment'],
    ])
    expect(attempts.items.every((a) => a.duration_ms >= 0 && a.type === 'site.published' && a.event_id === eventId)).toBe(true)
  })

  it('honours Retry-After on a 429', async () => {
    const receiver = await startReceiver()
    receiver.script({ status: 429, headers: { 'retry-after': '1' } })
    const { accountId } = await endpointFor(receiver.url)
    const eventId = await siteEvent(accountId)
    const [first, second] = await receiver.waitFor(2)
    // The schedule alone would retry after about 50 ms.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950)
    expect((await settled(eventId))[0]).toMatchObject({ state: 'succeeded', attempts: 2 })
  })

  it('gives up on a receiver that hangs past the timeout and retries', async () => {
    const receiver = await startReceiver()
    receiver.script('hang')
    const { accountId, endpoint } = await endpointFor(receiver.url)
    const eventId = await siteEvent(accountId)
    expect((await settled(eventId))[0]).toMatchObject({ state: 'succeeded', attempts: 2 })
    const attempts = (await listAttempts(db, endpoint.id, { limit: 10, offset: 0 }, keyring)).items
    expect(attempts[1]).toMatchObject({ attempt: 1, status: null, failure: 'timeout' })
    expect(attempts[1]!.error).toMatch(/within 1000 ms/)
    expect(attempts[1]!.duration_ms).toBeGreaterThanOrEqual(950)
  })

  it('disables the endpoint on 410 and keeps later events as dead letters', async () => {
    const receiver = await startReceiver({ status: 410 })
    const { accountId, endpoint } = await endpointFor(receiver.url)
    const first = await siteEvent(accountId)
    expect((await settled(first))[0]).toMatchObject({ state: 'dead', attempts: 1, last_status: 410, last_failure: 'status' })
    const after = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow()
    expect(after).toMatchObject({ enabled: false, disabled_reason: 'gone' })
    const second = await siteEvent(accountId)
    expect((await settled(second))[0]).toMatchObject({
      state: 'dead',
      attempts: 0,
      last_error: 'endpoint disabled',
      last_failure: 'disabled',
    })
    expect(receiver.requests).toHaveLength(1)
    // A disabled endpoint's dead letters are not replayed until it is enabled again.
    const dead = (await delivery(second))[0]!
    expect(await replay(accountId, dead.id)).toBe('endpoint_disabled')
  })

  it('holds back an account below pro: new events and pending retries become plan_required dead letters', async () => {
    const receiver = await startReceiver()
    // The first answer asks for a retry a second later; the account is downgraded meanwhile.
    receiver.script({ status: 503, headers: { 'retry-after': '1' } })
    const { accountId, endpoint, secret } = await endpointFor(receiver.url)
    const inFlight = await siteEvent(accountId)
    await receiver.waitFor(1)
    await db.updateTable('accounts').set({ plan: 'plus' }).where('id', '=', accountId).execute()
    expect((await settled(inFlight))[0]).toMatchObject({ state: 'dead', attempts: 1, last_status: 503, last_error: PLAN_REQUIRED_ERROR })
    const later = await siteEvent(accountId)
    expect((await settled(later))[0]).toMatchObject({ state: 'dead', attempts: 0, last_error: PLAN_REQUIRED_ERROR, last_failure: 'plan' })
    await new Promise((r) => setTimeout(r, 1200))
    expect(receiver.requests).toHaveLength(1)
    // Holding back is not failing: the endpoint stays enabled and its health is untouched.
    expect(
      await db.selectFrom('webhook_endpoints').select(['enabled', 'disabled_reason']).where('id', '=', endpoint.id).executeTakeFirst(),
    ).toEqual({ enabled: true, disabled_reason: null })

    await db.updateTable('accounts').set({ plan: 'max' }).where('id', '=', accountId).execute()
    for (const row of [...(await delivery(inFlight)), ...(await delivery(later))])
      expect(await replay(accountId, row.id)).toMatchObject({ deliveryId: expect.any(String) })
    const requests = await receiver.waitFor(3)
    expect(
      requests
        .slice(1)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([inFlight, later].sort())
    for (const request of requests.slice(1)) expect(verify(secret, request)).toMatchObject({ type: 'site.published' })
  })

  it('dead-letters another 4xx at once, without retrying', async () => {
    const receiver = await startReceiver({ status: 400, body: 'bad payload' })
    const { accountId } = await endpointFor(receiver.url)
    const eventId = await siteEvent(accountId)
    expect((await settled(eventId))[0]).toMatchObject({
      state: 'dead',
      attempts: 1,
      last_status: 400,
      last_error: 'the endpoint answered 400',
    })
    await new Promise((r) => setTimeout(r, 200))
    expect(receiver.requests).toHaveLength(1)
  })

  it('refuses the cloud metadata address on every attempt, even with private networks allowed', async () => {
    const { accountId } = await endpointFor('http://169.254.169.254/latest/meta-data')
    const eventId = await siteEvent(accountId)
    const [row] = await settled(eventId)
    expect(row).toMatchObject({ state: 'dead', attempts: 1, last_status: null, last_failure: 'address' })
    expect(row!.last_error).toMatch(/metadata|link-local/)
  })

  it('turns a delivery failing past the retry window into a dead letter, then replays it to a healthy receiver', async () => {
    const failing = await startReceiver({ status: 503 })
    const { accountId, endpoint, secret } = await endpointFor(failing.url)
    const eventId = await siteEvent(accountId)
    const [dead] = await settled(eventId)
    // The first try and one retry per schedule entry (4).
    expect(dead).toMatchObject({ state: 'dead', attempts: 5, last_status: 503 })
    expect(dead!.last_error).toMatch(/retries exhausted/)
    expect(failing.requests).toHaveLength(5)
    expect(failing.requests.at(-1)!.at - failing.requests[0]!.at).toBeLessThanOrEqual(2500 + 500)

    const letters = await listDeadLetters(db, accountId, { limit: 20, offset: 0 })
    expect(letters.items).toEqual([
      {
        id: dead!.id,
        endpoint_id: endpoint.id,
        event_id: eventId,
        type: 'site.published',
        attempts: 5,
        last_status: 503,
        last_error: dead!.last_error,
        last_failure: 'status',
        failed_at: dead!.failed_at!.toISOString(),
      },
    ])
    // Another account sees none of it and cannot replay it.
    const stranger = await createAccount(db)
    expect((await listDeadLetters(db, stranger, { limit: 20, offset: 0 })).total).toBe(0)
    expect(await replay(stranger, dead!.id)).toBe('not_found')

    const healthy = await startReceiver()
    await updateEndpoint(db, accountId, endpoint.id, { url: healthy.url })
    const replayed = await replay(accountId, dead!.id)
    expect(replayed).toMatchObject({ deliveryId: expect.stringMatching(/^dlv_/) })
    const [request] = await healthy.waitFor(1)
    expect(request!.headers['webhook-id']).toBe(eventId)
    expect(verify(secret, request!)).toMatchObject({ type: 'site.published' })
    expect((await listDeadLetters(db, accountId, { limit: 20, offset: 0 })).total).toBe(0)
    expect(await replay(accountId, dead!.id)).toBe('not_found')
  })

  it('signs with both secrets during a rotation overlap and refuses a second rotation then', async () => {
    const receiver = await startReceiver()
    const { accountId, endpoint, secret: oldSecret } = await endpointFor(receiver.url)
    const rotated = await rotate(accountId, endpoint.id)
    if (!rotated || !('secret' in rotated)) throw new Error('rotation refused')
    expect(rotated.secret).not.toBe(oldSecret)
    expect(rotated.previousExpiresAt.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000)
    expect(await rotate(accountId, endpoint.id)).toEqual({ overlapUntil: rotated.previousExpiresAt })

    await siteEvent(accountId)
    const [request] = await receiver.waitFor(1)
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2)
    expect(verify(oldSecret, request!)).toMatchObject({ type: 'site.published' })
    expect(verify(rotated.secret, request!)).toMatchObject({ type: 'site.published' })

    // After the overlap only the new secret signs, and another rotation is allowed.
    const later = new Date(Date.now() + 25 * 3600_000)
    const again = await rotate(accountId, endpoint.id, later)
    expect(again).toMatchObject({ secret: expect.stringMatching(/^whsec_/) })
    expect(await rotate('acct_other', endpoint.id)).toBeUndefined()
  })

  it('disables an endpoint that has failed everything for 5 days and mails its account', async () => {
    const receiver = await startReceiver({ status: 500 })
    const { accountId, endpoint } = await endpointFor(receiver.url)
    const email = `owner-${endpoint.id.slice(-6)}@example.com`
    const userId = `usr_${endpoint.id.slice(-10)}`
    await db
      .insertInto('users')
      .values({
        id: userId,
        account_id: accountId,
        email_hash: `h-${userId}`,
        email_sealed: keyring.seal(email, `users.email:${userId}`),
        last_sign_in_at: null,
      })
      .execute()
    await db.insertInto('account_members').values({ account_id: accountId, user_id: userId, role: 'owner' }).execute()
    await db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(Date.now() - 5 * 86_400_000 - 60_000) })
      .where('id', '=', endpoint.id)
      .execute()
    const eventId = await siteEvent(accountId)
    const [row] = await settled(eventId)
    expect(row).toMatchObject({ state: 'dead', attempts: 1 })
    expect(row!.last_error).toMatch(/disabled after failing every attempt for 5 days/)
    expect(
      await db.selectFrom('webhook_endpoints').select(['enabled', 'disabled_reason']).where('id', '=', endpoint.id).executeTakeFirst(),
    ).toEqual({ enabled: false, disabled_reason: 'failing' })
    const mails = await until(async () => {
      const found = await readOutbox(db, keyring, email)
      return found.length ? found : undefined
    })
    expect(mails[0]!.subject).toBe('A webhook endpoint was disabled')
    expect(mails[0]!.text).toContain(endpoint.url)

    // Enabling it again clears the run of failures.
    const enabled = await updateEndpoint(db, accountId, endpoint.id, { enabled: true })
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null })
  })
})
