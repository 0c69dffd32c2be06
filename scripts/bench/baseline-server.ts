// A bare Fastify server: no plugins, no logging. `hello` (the default) answers {"hello":"world"},
// the reference every benchmark prints beside; `pricing` sends the price list with the service's
// security headers, which shows what the payload and headers cost apart from the service's hooks.
import Fastify from 'fastify'
import { helmetHeaders } from '../../src/plugins/security.ts'
import { loadPricing } from '../../src/public/pricing.ts'

const mode = process.argv[3] ?? 'hello'
const app = Fastify({ logger: false })
if (mode === 'pricing') {
  const body = JSON.stringify(loadPricing())
  const headers = helmetHeaders()
  app.get('/', async (_request, reply) => reply.headers(headers).type('application/json; charset=utf-8').send(body))
} else {
  app.get('/', async () => ({ hello: 'world' }))
}
await app.listen({ port: Number(process.argv[2] ?? 3999), host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
