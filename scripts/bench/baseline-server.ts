// A bare Fastify server: no plugins, no logging. `hello` (the default) answers {"hello":"world"},
// the reference every benchmark prints beside; `pricing` sends the price list with every header
// /api/pricing sends (security headers, request id, rate-limit headers, caching), fixed values of
// the same length, so the service's own per-request work is all that differs. `db` makes one
// PostgreSQL round trip (`select 1`, a pool of the service's default size) per request: the cost of
// one database round trip with nothing else around it.
import Fastify from 'fastify'
import pg from 'pg'
import { helmetHeaders } from '../../src/infra/security.ts'
import { loadPricing } from '../../src/domain/accounts/plans.ts'

const mode = process.argv[3] ?? 'hello'
const app = Fastify({ logger: false })
if (mode === 'pricing') {
  const body = JSON.stringify(loadPricing())
  const headers = {
    ...helmetHeaders(),
    'x-request-id': '00000000-0000-4000-8000-000000000000',
    'x-ratelimit-limit': '60000000',
    'x-ratelimit-remaining': '59999999',
    'x-ratelimit-reset': '60',
    'cache-control': 'public, max-age=300',
    etag: `"${'0'.repeat(27)}"`,
  }
  app.get('/', async (_request, reply) => reply.headers(headers).type('application/json; charset=utf-8').send(body))
} else if (mode === 'db') {
  const pool = new pg.Pool({ connectionString: process.argv[4], max: 10 })
  // An idle connection cut by the server (its database dropped at the end of a run) is no failure of the run.
  pool.on('error', () => {})
  app.get('/', async () => {
    await pool.query('select 1')
    return { status: 'ready', database: 'postgres' }
  })
} else {
  app.get('/', async () => ({ hello: 'world' }))
}
await app.listen({ port: Number(process.argv[2] ?? 3999), host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
