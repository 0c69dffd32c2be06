import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server'

/**
 * Hands one Fastify request to the SDK's web-standard handler and sends its answer through the
 * reply, so the headers the app's hooks set (x-request-id, security headers, rate limits) stay on
 * it. A body that parses as JSON is handed over parsed as well (`parsedBody`): the SDK would
 * otherwise clone the request to read, decode and parse the same bytes again. A body that does
 * not parse is left to the SDK, so malformed JSON and wrong media types get its own JSON-RPC
 * answers. A client that goes away aborts the exchange. `closed` runs once the answer is sent or
 * the client gone.
 */
export async function serveMcp(
  handler: McpHttpHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  url: string,
  authInfo: AuthInfo,
  closed?: () => void,
) {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    // The credential, verified already, reaches the SDK as `authInfo`; the bearer token itself
    // stays out of the request the SDK and its tools see.
    if (value === undefined || name === 'authorization') continue
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else headers.set(name, value)
  }
  const abort = new AbortController()
  const onClose = () => {
    if (!reply.raw.writableFinished) abort.abort()
    closed?.()
  }
  reply.raw.once('close', onClose)

  const body = request.body instanceof Buffer && request.body.length > 0 ? request.body : undefined
  const webRequest = new Request(url, { method: request.method, headers, body, signal: abort.signal })
  const parsedBody = body && parsedJson(body)
  const response = await handler.fetch(webRequest, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody })

  reply.code(response.status)
  response.headers.forEach((value, name) => {
    reply.header(name, value)
  })
  if (!response.body) return reply.send()
  // Server-sent events stream as they come; a JSON answer is read whole and sent with its length.
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream))
  }
  return reply.send(Buffer.from(await response.arrayBuffer()))
}

/** The body's JSON value, or undefined where it is not JSON (the SDK then reads it and answers). */
function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown
  } catch {
    return undefined
  }
}
