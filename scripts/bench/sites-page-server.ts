// A bare Fastify server with no plugins and no logging that answers every GET with one captured
// response (status, headers, body): the reference for serving a published page.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const captured = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as { headers: Record<string, string>; body: string }
const body = Buffer.from(captured.body, 'base64')
const app = Fastify({ logger: false })
app.get('/*', async (_request, reply) => reply.headers(captured.headers).send(body))
await app.listen({ port: Number(process.argv[2] ?? 3999), host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
