import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { logStoreState } from '../../src/infra/rate-limit/plugin.ts'
import { buildTestApp } from '../helpers/app.ts'
import { cleanUpAfter } from '../helpers/cleanup.ts'
import { testRedisUrl, withRedis } from '../helpers/redis.ts'
import { startTcpProxy } from '../helpers/tcp-proxy.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const storeLines = (logs: Array<Record<string, unknown>>) => logs.filter((l) => String(l['msg']).startsWith('rate-limit store'))

describe.runIf(withRedis)('rate limits shared through Redis', () => {
  it('counts one budget across two instances', async () => {
    const first = await buildTestApp({ env: { REDIS_URL: testRedisUrl } })
    const second = await buildTestApp({
      env: { REDIS_URL: testRedisUrl },
      databaseUrl: first.databaseUrl === 'memory://' ? undefined : first.databaseUrl,
    })
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

  it('logs an outage once, not every reconnect, without a stack trace, and its end once; requests pass meanwhile', {
    timeout: 30_000,
  }, async () => {
    const url = new URL(testRedisUrl)
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379))
    cleanUpAfter(() => proxy.close())
    const { app, logs } = await buildTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, captureLogs: true })
    const remote = `10.${[...randomBytes(3)].join('.')}`
    const pricing = async () => (await app.inject({ method: 'GET', url: '/api/pricing', remoteAddress: remote })).statusCode
    expect(await pricing()).toBe(200)
    expect(storeLines(logs)).toEqual([])

    proxy.cut()
    const statuses: number[] = []
    for (const until = Date.now() + 6000; Date.now() < until; await sleep(100)) statuses.push(await pricing())
    expect(statuses.every((s) => s === 200)).toBe(true)
    const down = storeLines(logs)
    expect(down).toHaveLength(1)
    expect(down[0]).toMatchObject({
      level: 40,
      msg: 'rate-limit store unreachable: requests pass without a shared limit until it answers',
      reason: expect.any(String),
    })
    expect(JSON.stringify(logs)).not.toMatch(/stack|\\n\s+at /)

    proxy.restore()
    for (const until = Date.now() + 10_000; storeLines(logs).length < 2 && Date.now() < until; ) await sleep(100)
    expect(storeLines(logs).slice(1)).toEqual([
      expect.objectContaining({ level: 30, msg: 'rate-limit store answers again', downForSeconds: expect.any(Number) }),
    ])
    expect(await pricing()).toBe(200)
  })

  it('reminds of a lasting outage at most once per interval, however often reconnects fail', { timeout: 30_000 }, async () => {
    const lines: Array<Record<string, unknown> & { time: number }> = []
    const log = pino(
      { level: 'info' },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown> & { time: number }) },
    )
    // Nothing listens on port 1: every attempt, made every 50 ms here, fails at once.
    const redis = new Redis('redis://127.0.0.1:1', { connectTimeout: 500, maxRetriesPerRequest: 1, retryStrategy: () => 50 })
    cleanUpAfter(() => redis.disconnect())
    let failures = 0
    redis.on('error', () => failures++)
    logStoreState(redis, log, 1000)
    await sleep(3500)
    expect(failures).toBeGreaterThan(20)
    const [first, ...reminders] = lines
    expect(first).toMatchObject({
      level: 40,
      msg: 'rate-limit store unreachable: requests pass without a shared limit until it answers',
      reason: 'ECONNREFUSED',
    })
    expect(reminders.length).toBeGreaterThanOrEqual(2)
    expect(reminders.length).toBeLessThanOrEqual(3)
    for (const [i, reminder] of reminders.entries()) {
      expect(reminder).toMatchObject({
        level: 40,
        msg: 'rate-limit store still unreachable',
        reason: 'ECONNREFUSED',
        downForSeconds: expect.any(Number),
      })
      expect(reminder.time - (i === 0 ? first!.time : reminders[i - 1]!.time)).toBeGreaterThanOrEqual(1000)
    }
    expect(JSON.stringify(lines)).not.toContain('stack')
  })
})
