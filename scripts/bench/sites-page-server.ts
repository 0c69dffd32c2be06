// The references for serving a published page: a server with no plugins and no logging that
// answers every GET with one captured response (status, headers, body). `fastify` (the default)
// is a bare Fastify route; `node` is Node's own HTTP server with the header list written in one
// call, the least any server on node:http does for the same bytes. A fifth argument makes the node
// server spend that many microseconds of CPU on each request before answering (a busy loop): what
// the floor measures once it does that much work of its own, such as a log line and a request id.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import Fastify from 'fastify'

const port = Number(process.argv[2] ?? 3999)
const captured = JSON.parse(readFileSync(process.argv[3]!, 'utf8')) as { headers: Record<string, string>; body: string }
const body = Buffer.from(captured.body, 'base64')
const busyMs = Number(process.argv[5] ?? 0) / 1000

if (process.argv[4] === 'node') {
  const list = Object.entries({ ...captured.headers, 'content-length': String(body.length) }).flat()
  const server = createServer((_request, response) => {
    if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until; );
    response.writeHead(200, list)
    response.end(body)
  })
  server.listen(port, '127.0.0.1')
  process.on('SIGTERM', () => void server.close(() => process.exit(0)))
} else {
  const app = Fastify({ logger: false })
  app.get('/*', async (_request, reply) => reply.headers(captured.headers).send(body))
  await app.listen({ port, host: '127.0.0.1' })
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
}
