import { describe, expect, it } from 'vitest'
import { clientKey, RATE_LIMITS } from '../../src/infra/rate-limit/budgets.ts'

const AGENT_REQUESTS_PER_MINUTE = RATE_LIMITS['agent.requests'].perMinute
const TURNS_PER_MINUTE = RATE_LIMITS['agent.turns'].perMinute
import { buildTestApp } from '../helpers/app.ts'
import { contractErrors } from './contract.ts'
import { bootstrap, expectAgentError, freshIp, turnId, type Session } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test' } })

const submit = (s: Session, body: Record<string, unknown>, remoteAddress = freshIp()) =>
  app.inject({
    method: 'POST',
    url: '/api/agent/chat',
    payload: { session_id: s.session_id, session_token: s.session_token, ...body },
    remoteAddress,
  })

function expectRateLimited(res: Awaited<ReturnType<typeof submit>>) {
  expect(res.statusCode, res.body).toBe(429)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  const body = res.json()
  expect(contractErrors('rateLimit', body)).toEqual([])
  expect(body.code).toBe('RATE_LIMITED')
  expect(body.retryAfterSeconds).toBeGreaterThanOrEqual(1)
  expect(body.retryAfterSeconds).toBeLessThanOrEqual(60)
  expect(Number(res.headers['retry-after'])).toBe(body.retryAfterSeconds)
}

describe('rate limits (DESIGN.md 6)', () => {
  it(`allows ${AGENT_REQUESTS_PER_MINUTE} requests a minute per address across /api/agent, then 429 AgentRateLimitError`, async () => {
    expect(AGENT_REQUESTS_PER_MINUTE).toBe(120)
    const ip = '203.0.113.77'
    const s = await bootstrap(app, {}, ip)
    const urls = ['/api/agent/event', '/api/agent/chat', '/api/agent/bootstrap']
    const statuses: number[] = []
    for (let i = 1; i < AGENT_REQUESTS_PER_MINUTE; i++) {
      const res = await app.inject({
        method: 'POST',
        url: urls[i % 3]!,
        payload: { session_id: s.session_id, session_token: s.session_token, type: 'assistant_opened' },
        remoteAddress: ip,
      })
      statuses.push(res.statusCode)
    }
    expect(statuses.every((st) => st !== 429)).toBe(true)
    expectRateLimited(await app.inject({ method: 'POST', url: '/api/agent/event', payload: {}, remoteAddress: ip }))
    expectRateLimited(await app.inject({ method: 'DELETE', url: '/api/agent/bootstrap', payload: {}, remoteAddress: ip }))
    expectRateLimited(await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: {}, remoteAddress: ip }))
    expectRateLimited(await submit(s, { turn_id: turnId(), message: 'hi' }, ip))
    // Another address is not affected.
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/api/agent/event',
          payload: { session_id: s.session_id, session_token: s.session_token, type: 'assistant_opened' },
          remoteAddress: freshIp(),
        })
      ).statusCode,
    ).toBe(200)
  })

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 address', async () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:bbbb::2'))
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'))
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7')
    for (let i = 0; i < AGENT_REQUESTS_PER_MINUTE; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/agent/event',
        payload: {},
        remoteAddress: `2001:db8:77:1::${(i + 1).toString(16)}`,
      })
      expect(res.statusCode).toBe(400)
    }
    expectRateLimited(await app.inject({ method: 'POST', url: '/api/agent/event', payload: {}, remoteAddress: '2001:db8:77:1:ffff::9' }))
    expect((await app.inject({ method: 'POST', url: '/api/agent/event', payload: {}, remoteAddress: '2001:db8:77:2::1' })).statusCode).toBe(
      400,
    )
  })

  it(`allows ${TURNS_PER_MINUTE} turns a minute per session, whatever the address, then 429`, async () => {
    expect(TURNS_PER_MINUTE).toBe(20)
    const s = await bootstrap(app)
    for (let i = 0; i < TURNS_PER_MINUTE; i++) {
      const res = await submit(s, { turn_id: turnId(), message: `Question ${i} about domains` })
      expect(res.statusCode, res.body).toBe(200)
    }
    expectRateLimited(await submit(s, { turn_id: turnId(), message: 'one more' }))
    // Wrong tokens do not count against (or get refused by) the session's budget.
    const victim = await bootstrap(app)
    for (let i = 0; i < TURNS_PER_MINUTE + 5; i++) {
      expect((await submit({ ...victim, session_token: 'E'.repeat(43) }, { turn_id: turnId(), message: 'spam' })).statusCode).toBe(404)
    }
    expect((await submit(victim, { turn_id: turnId(), message: 'hello' })).statusCode).toBe(200)
    const other = await bootstrap(app)
    expect((await submit(other, { turn_id: turnId(), message: 'hello' })).statusCode).toBe(200)
  })
})

describe('limits of INTERFACE.md section 8', () => {
  it('chat message: 1 to 2000 characters', async () => {
    const s = await bootstrap(app)
    expectAgentError(await submit(s, { turn_id: turnId(), message: '' }), 400, 'invalid-request')
    expect((await submit(s, { turn_id: turnId(), message: 'x' })).statusCode).toBe(200)
    expect((await submit(s, { turn_id: turnId(), message: 'pricing '.repeat(250) })).statusCode).toBe(200)
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'y'.repeat(2001) }), 400, 'invalid-request')
  })

  it('counts characters, not bytes: 2000 four-byte characters are one valid message; bodies beyond 32 KiB are refused unread', async () => {
    const s = await bootstrap(app)
    expect((await submit(s, { turn_id: turnId(), message: '😀'.repeat(2000) })).statusCode).toBe(200)
    expectAgentError(await submit(s, { turn_id: turnId(), message: '😀'.repeat(2001) }), 400, 'invalid-request')
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'hi', url: 'u'.repeat(40_000) }), 400, 'body-too-large')
  })

  it('turn_id: 8 to 128 of [A-Za-z0-9_-]', async () => {
    const s = await bootstrap(app)
    expect((await submit(s, { turn_id: 'a'.repeat(8), message: 'hi' })).statusCode).toBe(200)
    expect((await submit(s, { turn_id: 'b'.repeat(128), message: 'hi' })).statusCode).toBe(200)
    expectAgentError(await submit(s, { turn_id: 'c'.repeat(7), message: 'hi' }), 400, 'invalid-request')
    expectAgentError(await submit(s, { turn_id: 'd'.repeat(129), message: 'hi' }), 400, 'invalid-request')
    expectAgentError(await submit(s, { turn_id: 'turn id!', message: 'hi' }), 400, 'invalid-request')
  })

  it('url: at most 500 characters on bootstrap and chat', async () => {
    const s = await bootstrap(app)
    const url500 = `https://platform.test/${'p'.repeat(500 - 'https://platform.test/'.length)}`
    expect(url500).toHaveLength(500)
    expect((await submit(s, { turn_id: turnId(), message: 'hi', url: url500 })).statusCode).toBe(200)
    expectAgentError(await submit(s, { turn_id: turnId(), message: 'hi', url: `${url500}x` }), 400, 'invalid-request')
    expect(
      (await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: url500 }, remoteAddress: freshIp() })).statusCode,
    ).toBe(200)
    expectAgentError(
      await app.inject({ method: 'POST', url: '/api/agent/bootstrap', payload: { url: `${url500}x` }, remoteAddress: freshIp() }),
      400,
    )
  })

  it('session_id: 4 to 200 characters; session_token: exactly 43', async () => {
    const s = await bootstrap(app)
    expectAgentError(await submit({ ...s, session_id: 'ag_' }, { turn_id: turnId(), message: 'hi' }), 400, 'invalid-session-id')
    expectAgentError(
      await submit({ ...s, session_id: `ag_${'x'.repeat(198)}` }, { turn_id: turnId(), message: 'hi' }),
      400,
      'invalid-session-id',
    )
    expectAgentError(await submit({ ...s, session_id: 'ag_x' }, { turn_id: turnId(), message: 'hi' }), 404, 'session-not-found')
    expectAgentError(
      await submit({ ...s, session_id: `ag_${'x'.repeat(197)}` }, { turn_id: turnId(), message: 'hi' }),
      404,
      'session-not-found',
    )
    expectAgentError(
      await submit({ ...s, session_token: s.session_token.slice(1) }, { turn_id: turnId(), message: 'hi' }),
      400,
      'invalid-request',
    )
    expectAgentError(
      await submit({ ...s, session_token: `${s.session_token}A` }, { turn_id: turnId(), message: 'hi' }),
      400,
      'invalid-request',
    )
  })

  it('reply: at most 1500 characters, at most one action and one suggestion, whatever is asked', async () => {
    const s = await bootstrap(app)
    const questions = [
      'plans prices add-ons yearly billing cancellation upgrade '.repeat(20),
      'api webhooks mcp rate limits plans',
      'privacy data chat leads consent storage',
      'demo book buy offer human',
    ]
    for (const message of questions) {
      const res = await submit(s, { turn_id: turnId(), message })
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(contractErrors('chat', body)).toEqual([])
      expect(body.reply.length).toBeLessThanOrEqual(1500)
    }
  })
})
