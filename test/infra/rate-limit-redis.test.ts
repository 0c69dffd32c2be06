import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { testRedisUrl, withRedis } from '../helpers/redis.ts'

describe.runIf(withRedis)('rate limits shared through Redis', () => {
  it('counts one budget across two instances', async () => {
    const first = await buildTestApp({ env: { REDIS_URL: testRedisUrl } })
    const second = await buildTestApp({ env: { REDIS_URL: testRedisUrl }, databaseUrl: first.databaseUrl === 'memory://' ? undefined : first.databaseUrl })
    // A client address of its own so concurrent runs do not share counters.
    const remote = `10.${[...randomBytes(3)].join('.')}`
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) {
      const app = i % 2 === 0 ? first.app : second.app
      statuses.push((await app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: remote })).statusCode)
    }
    expect(statuses.every((s) => s === 200)).toBe(true)
    const over = await second.app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: remote })
    expect(over.statusCode).toBe(429)
    expect(over.json()).toMatchObject({ code: 'rate_limited' })
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect((await first.app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: remote })).statusCode).toBe(429)
  })

  it('lets requests through when Redis cannot be reached, rather than failing them', async () => {
    const { app } = await buildTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } })
    const res = await app.inject({ method: 'GET', url: '/api/pricing' })
    expect(res.statusCode).toBe(200)
  })
})
