import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

/**
 * How long, and how many bytes, the rest of a request body is read and thrown away after an answer
 * sent before it arrived (a 413, an early 429): a client still writing when the connection closes
 * gets a reset and never reads the answer, so the connection stays open while the client finishes,
 * as nginx's lingering close does. Beyond either bound the connection is dropped.
 */
export const LINGER_MS = 10_000
export const LINGER_BYTES = 16 * 1024 * 1024

/** How long a refused CONNECT may still deliver what it was sending before it is dropped. */
const REFUSED_LINGER_MS = 2000

/**
 * Reads and discards the rest of a request body that will not be used, within the bounds above,
 * so the connection stays open until the client has sent it and then serves the next request.
 */
function discardRestOfBody(request: IncomingMessage): void {
  const socket = request.socket
  let left = LINGER_BYTES
  // Injected requests (app.inject) run on a stand-in socket without destroy: nothing to drop there.
  const drop = () => socket.destroy?.()
  const timer = setTimeout(drop, LINGER_MS).unref()
  const count = (chunk: Buffer) => {
    left -= chunk.length
    if (left < 0) drop()
  }
  const done = () => {
    clearTimeout(timer)
    request.off('data', count)
  }
  request.on('data', count).once('end', done).once('close', done)
  request.resume()
}

export interface ConnectionsOptions {
  /** The problem+json body a CONNECT is refused with (made by src/errors.ts, which lies above infra). */
  connectRefusal: string
}

/**
 * CONNECT asks the server to be a proxy; Node drops such a connection without a word unless a
 * listener answers it. It gets 405 in the problem shape, and the connection is closed.
 */
function refuseConnect(app: FastifyInstance, body: string, socket: Duplex): void {
  app.log.info({ code: 'method_not_allowed', status: 405, reason: 'CONNECT' }, 'request refused before routing')
  socket.on('error', () => {})
  socket.end(
    `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n` +
      `Content-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  )
  socket.resume()
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref()
}

/** Connection-level behaviour below the routes: answers reach the client, CONNECT is refused. */
async function connections(app: FastifyInstance, { connectRefusal }: ConnectionsOptions) {
  // A refusal sent before the body arrived (Fastify marks a refused body `Connection: close`).
  // An onError hook, so a request answered normally pays nothing for this.
  app.addHook('onError', (request, reply, _error, done) => {
    if (!request.raw.complete) {
      if (reply.getHeader('connection') === 'close') reply.removeHeader('connection')
      discardRestOfBody(request.raw)
    }
    done()
  })
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => refuseConnect(app, connectRefusal, socket))
}

export default fp(connections, { name: 'connections' })
