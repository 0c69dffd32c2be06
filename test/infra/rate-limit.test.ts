import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { testRedisUrl, withRedis } from '../helpers/redis.ts'

// Probe routes: two that share the group `pair`, one in a group of its own, all 3 a minute.
async function probes(app: FastifyInstance) {
  const limit = (groupId: string) => ({ rateLimit: { max: 3, timeWindow: 60_000, groupId } })
  app.get('/probe/entry', { config: limit('pair') }, async () => ({ ok: true }))
  app.post('/probe/decision', { config: limit('pair') }, async () => ({ ok: true }))
  app.get('/probe/other', { config: limit('other') }, async () => ({ ok: true }))
}

const stores: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'in process', env: {} },
  ...(withRedis ? [{ name: 'Redis', env: { REDIS_URL: testRedisUrl } }] : []),
]

describe.each(stores)('route groups counted $name', ({ env }) => {
  it('share one budget per client across the routes of a group, and only there', async () => {
    const { app } = await buildTestApp({ plugins: [probes], env })
    // An address of its own per run, so runs sharing one Redis do not share counters.
    const remoteAddress = `10.${[...randomBytes(3)].join('.')}`
    const hit = (method: 'GET' | 'POST', url: string, from = remoteAddress) => app.inject({ method, url, remoteAddress: from })

    const first = await hit('GET', '/probe/entry')
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-ratelimit-limit']).toBe('3')
    expect(first.headers['x-ratelimit-remaining']).toBe('2')
    expect((await hit('POST', '/probe/decision')).headers['x-ratelimit-remaining']).toBe('1')
    expect((await hit('GET', '/probe/entry')).statusCode).toBe(200)

    const over = await hit('POST', '/probe/decision')
    expect(over.statusCode).toBe(429)
    expect(over.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(over.json()).toMatchObject({ status: 429, code: 'rate_limited' })
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect((await hit('GET', '/probe/entry')).statusCode).toBe(429)

    // Another group, and another client, each keep their own budget.
    expect((await hit('GET', '/probe/other')).statusCode).toBe(200)
    expect((await hit('GET', '/probe/entry', '192.0.2.77')).statusCode).toBe(200)
  })
})
