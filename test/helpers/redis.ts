import { reachable } from './reachable.ts'

/** The Redis the suite shares rate limits through (TEST_REDIS_URL); CI always has one. */
export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
export const withRedis = await reachable(testRedisUrl, 6379)
if (!withRedis && process.env.CI) throw new Error(`CI expects Redis at ${testRedisUrl}`)
