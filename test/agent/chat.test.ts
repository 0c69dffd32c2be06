import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { loadPricing } from '../../src/domain/accounts/plans.ts'
import { formatEuro } from '../../src/agent/knowledge.ts'
import { requestHash } from '../../src/agent/turns.ts'
import { createSite } from '../../src/domain/sites/sites.ts'
import { buildTestApp } from '../helpers/app.ts'
import { contractErrors } from './contract.ts'
import { bootstrap, chat, expectAgentError, freshIp, turnId, type Session } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })
await createSite(app.db, { name: 'Plain', hostname: 'plain.example', settings: { assistant: { enabled: true } } })

interface ChatBody {
  reply: string
  session_id: string
  actions?: Array<Record<string, string>>
  suggestions?: Array<{ label: string; prompt: string }>
  sources?: Array<{ title: string; url: string }>
  handoff: { state: string }
  usage?: { tokens: number }
}

async function ask(session: Session, message: string, extra: Record<string, unknown> = {}): Promise<ChatBody> {
  const res = await chat(app, session, message, extra)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  const body = res.json() as ChatBody
  expect(contractErrors('chat', body)).toEqual([])
  return body
}

const submit = (session: Session, body: Record<string, unknown>) =>
  app.inject({
    method: 'POST',
    url: '/api/agent/chat',
    payload: { session_id: session.session_id, session_token: session.session_token, ...body },
    remoteAddress: freshIp(),
  })

describe('POST /api/agent/chat: answers', () => {
  it('quotes prices from the price list, cites its sources and keeps to one action and one suggestion', async () => {
    const s = await bootstrap(app)
    const body = await ask(s, 'How much does the Pro plan cost per month?')
    const pro = loadPricing().plans.find((p) => p.id === 'pro')!
    expect(body.reply).toContain(formatEuro(pro.monthly_price_cents, 'en'))
    expect(body.reply.length).toBeLessThanOrEqual(1500)
    expect(body.sources).toEqual([{ title: 'Plans and prices', url: '/en/pricing' }])
    expect(body.actions).toEqual([{ type: 'navigate', href: '/en/pricing' }])
    expect(body.suggestions).toHaveLength(1)
    expect(body.handoff).toEqual({ state: 'none' })
    expect(body.usage).toBeUndefined()
  })

  it('answers in the session locale from that locale’s knowledge', async () => {
    const de = await bootstrap(app, { locale: 'de' })
    const deBody = await ask(de, 'Wie verbinde ich meine eigene Domain?')
    expect(deBody.reply).toMatch(/DNS-Eintrag/)
    expect(deBody.sources?.[0]?.url).toBe('/de/domains')
    const fr = await bootstrap(app, { locale: 'fr' })
    const frBody = await ask(fr, 'Combien coûte la formule Plus ?')
    const plus = loadPricing().plans.find((p) => p.id === 'plus')!
    expect(frBody.reply).toContain(formatEuro(plus.monthly_price_cents, 'fr'))
    expect(frBody.sources?.[0]?.url).toBe('/fr/pricing')
  })

  it('does not point the visitor to the page already open', async () => {
    const s = await bootstrap(app)
    const body = await ask(s, 'How much does the Pro plan cost?', { url: 'https://platform.test/en/pricing' })
    expect(body.actions).toBeUndefined()
  })

  it('offers booking on booking intent and lead capture on buying intent, when the site offers them', async () => {
    const s = await bootstrap(app)
    expect((await ask(s, 'I would like to book a demo appointment')).actions).toEqual([
      { type: 'open_booking', url: 'https://platform.test/demo' },
    ])
    expect((await ask(s, 'I want to buy the Pro plan, can you send me an offer?')).actions).toEqual([
      { type: 'capture_lead', phase: 'suggested' },
    ])
    const plain = await bootstrap(app, { url: 'https://plain.example/' })
    const actions = (await ask(plain, 'I would like to book a demo appointment')).actions ?? []
    expect(actions.every((a) => a['type'] === 'navigate')).toBe(true)
    expect((await ask(plain, 'I want to buy the Pro plan')).actions?.[0]?.['type']).not.toBe('capture_lead')
  })

  it('says so instead of inventing an answer when nothing in the knowledge base matches', async () => {
    const s = await bootstrap(app)
    const body = await ask(s, 'Quantum chromodynamics of gluons?')
    expect(body.reply).toMatch(/don't have reliable information/)
    expect(body.sources).toBeUndefined()
    expect(body.reply).not.toMatch(/€/)
  })
})

describe('POST /api/agent/chat: durable, idempotent turns', () => {
  it('replays the stored response byte for byte for the same turn and payload, processing it once', async () => {
    const s = await bootstrap(app)
    const payload = { turn_id: turnId(), message: 'Tell me about the SEO audit' }
    const first = await submit(s, payload)
    const second = await submit(s, payload)
    expect(first.statusCode).toBe(200)
    expect(second.statusCode).toBe(200)
    expect(second.body).toBe(first.body)
    const messages = await app.db.selectFrom('agent_messages').select('role').where('session_id', '=', s.session_id).execute()
    expect(messages).toHaveLength(2)
  })

  it('answers 409 payload mismatch for the same turn with another payload', async () => {
    const s = await bootstrap(app)
    const id = turnId()
    expect((await submit(s, { turn_id: id, message: 'first' })).statusCode).toBe(200)
    expectAgentError(await submit(s, { turn_id: id, message: 'second' }), 409, 'payload-mismatch')
    expectAgentError(await submit(s, { turn_id: id, message: 'first', url: '/en/other' }), 409, 'payload-mismatch')
  })

  it('answers 409 locale mismatch for a locale other than the session’s', async () => {
    const s = await bootstrap(app, { locale: 'de' })
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'Hallo', locale: 'fr' }), 409, 'locale-mismatch')
    expect((await submit(s, { turn_id: turnId(), message: 'Hallo', locale: 'de' })).statusCode).toBe(200)
  })

  it('answers 409 turn-in-progress while another process holds the turn', async () => {
    const s = await bootstrap(app)
    const id = turnId()
    await app.db
      .insertInto('agent_turns')
      .values({
        session_id: s.session_id,
        turn_id: id,
        request_hash: requestHash({ message: 'busy' }),
        state: 'processing',
        lease_owner: 'other',
        lease_until: sql<Date>`now() + interval '10 seconds'`,
        response: null,
        completed_at: null,
      })
      .execute()
    const res = await submit(s, { turn_id: id, message: 'busy' })
    expect(res.statusCode).toBe(409)
    const body = res.json()
    expect(contractErrors('turnInProgress', body)).toEqual([])
    expect(body.retry_after_seconds).toBeGreaterThanOrEqual(1)
    expect(Number(res.headers['retry-after'])).toBe(body.retry_after_seconds)
  })

  it('takes over a turn whose lease expired (its process died) and answers it', async () => {
    const s = await bootstrap(app)
    const id = turnId()
    await app.db
      .insertInto('agent_turns')
      .values({
        session_id: s.session_id,
        turn_id: id,
        request_hash: requestHash({ message: 'What about domains?' }),
        state: 'processing',
        lease_owner: 'dead',
        lease_until: sql<Date>`now() - interval '1 second'`,
        response: null,
        completed_at: null,
      })
      .execute()
    const res = await submit(s, { turn_id: id, message: 'What about domains?' })
    expect(res.statusCode, res.body).toBe(200)
    expect(contractErrors('chat', res.json())).toEqual([])
    const row = await app.db
      .selectFrom('agent_turns')
      .selectAll()
      .where('session_id', '=', s.session_id)
      .where('turn_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ state: 'done', attempts: 2, lease_owner: null })
    expect(row.response).toBe(res.body)
    // The dead claimant's late write cannot land: its lease is gone.
    const again = await submit(s, { turn_id: id, message: 'What about domains?' })
    expect(again.body).toBe(res.body)
  })

  it('processes exactly one of 20 simultaneous submissions of one turn; the others get the stored 200 or 409 turn-in-progress', async () => {
    const s = await bootstrap(app)
    const payload = { turn_id: turnId(), message: 'What does the Max plan include?' }
    const answers = await Promise.all(Array.from({ length: 20 }, () => submit(s, payload)))
    const row = await app.db.selectFrom('agent_turns').selectAll().where('session_id', '=', s.session_id).execute()
    expect(row).toHaveLength(1)
    expect(row[0]!.attempts).toBe(1)
    const stored = row[0]!.response
    let ok = 0
    for (const a of answers) {
      if (a.statusCode === 200) {
        ok += 1
        expect(a.body).toBe(stored)
      } else {
        expect(a.statusCode).toBe(409)
        expect(contractErrors('turnInProgress', a.json())).toEqual([])
      }
    }
    expect(ok).toBeGreaterThanOrEqual(1)
    const messages = await app.db.selectFrom('agent_messages').select('role').where('session_id', '=', s.session_id).execute()
    expect(messages.map((m) => m.role).sort()).toEqual(['assistant', 'visitor'])
  })
})

describe('POST /api/agent/chat: refusals', () => {
  it('answers 404 for an unknown session or a wrong token, 400 for a malformed session id', async () => {
    const s = await bootstrap(app)
    expectAgentError(await submit({ ...s, session_token: 'C'.repeat(43) }, { turn_id: turnId(), message: 'hi' }), 404, 'session-not-found')
    expectAgentError(await submit({ ...s, session_id: 'ag_unknown' }, { turn_id: turnId(), message: 'hi' }), 404, 'session-not-found')
    expectAgentError(await submit({ ...s, session_id: 'bad id' }, { turn_id: turnId(), message: 'hi' }), 400, 'invalid-session-id')
  })

  it('answers 404 feature disabled when the site switched its assistant off', async () => {
    const site = await createSite(app.db, { name: 'Off', hostname: 'off.example', settings: { assistant: { enabled: true } } })
    const s = await bootstrap(app, { url: 'https://off.example/' })
    await app.db.updateTable('sites').set({ status: 'offline' }).where('id', '=', site.id).execute()
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'hi' }), 404, 'feature-disabled')
  })

  it('never answers from a stale view of a session this process saw moments ago', async () => {
    const site = await createSite(app.db, {
      name: 'Changing',
      hostname: 'changing.example',
      settings: { assistant: { enabled: true, capabilities: { booking: true, booking_url: 'https://changing.example/old' } } },
    })
    const s = await bootstrap(app, { url: 'https://changing.example/' })
    expect((await ask(s, 'I would like to book a demo')).actions).toEqual([{ type: 'open_booking', url: 'https://changing.example/old' }])
    // Settings edited: the next turn uses the new booking url.
    await app.db
      .updateTable('sites')
      .set({
        settings: JSON.stringify({
          assistant: { enabled: true, capabilities: { booking: true, booking_url: 'https://changing.example/new' } },
        }),
      })
      .where('id', '=', site.id)
      .execute()
    expect((await ask(s, 'I would like to book a demo')).actions).toEqual([{ type: 'open_booking', url: 'https://changing.example/new' }])
    // Assistant switched off: 404 at once.
    await app.db
      .updateTable('sites')
      .set({ settings: JSON.stringify({ assistant: { enabled: false } }) })
      .where('id', '=', site.id)
      .execute()
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'hi' }), 404, 'feature-disabled')
    // Session erased by another instance: 404 at once, and nothing is stored for it.
    const other = await bootstrap(app)
    await ask(other, 'hello')
    await app.db.deleteFrom('agent_sessions').where('id', '=', other.session_id).execute()
    expectAgentError(await submit(other, { turn_id: turnId(), message: 'still there?' }), 404, 'session-not-found')
    expect(await app.db.selectFrom('agent_messages').select('id').where('session_id', '=', other.session_id).execute()).toHaveLength(0)
  })

  it('refuses unknown properties and missing fields with 400', async () => {
    const s = await bootstrap(app)
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'hi', extra: 1 }), 400, 'invalid-request')
    expectAgentError(await submit(s, { turn_id: turnId() }), 400, 'invalid-request')
    expectAgentError(await submit(s, { message: 'hi' }), 400, 'invalid-request')
    expectAgentError(await submit(s, { turn_id: turnId(), message: 42 }), 400, 'invalid-request')
  })
})
