import { randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.ts'
import { testRedisUrl, withRedis } from '../helpers/redis.ts'
import { contractErrors } from './contract.ts'

/** Two instances on one database and one Redis enforce one budget per client address. */
describe.runIf(withRedis)('rate limits shared through Redis', async () => {
  const first = await buildTestApp({ env: { REDIS_URL: testRedisUrl } })
  const second = await buildTestApp({ databaseUrl: first.databaseUrl, env: { REDIS_URL: testRedisUrl } })

  it('counts requests to both instances against the same 120 a minute', async () => {
    // A random documentation address, so earlier runs within the minute do not interfere.
    const ip = `2001:db8:${randomInt(0xffff).toString(16)}::${randomInt(0xffff).toString(16)}`
    for (let i = 0; i < 120; i++) {
      const app = i % 2 === 0 ? first.app : second.app
      const res = await app.inject({ method: 'POST', url: '/api/agent/event', payload: {}, remoteAddress: ip })
      expect(res.statusCode).toBe(400)
    }
    for (const app of [first.app, second.app]) {
      const res = await app.inject({ method: 'POST', url: '/api/agent/event', payload: {}, remoteAddress: ip })
      expect(res.statusCode).toBe(429)
      expect(contractErrors('rateLimit', res.json())).toEqual([])
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
  })
})
