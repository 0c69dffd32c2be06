import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server'

/**
 * Hands one Fastify request to the SDK's web-standard handler and sends its answer through the
 * reply, so the headers the app's hooks set (x-request-id, security headers, rate limits) stay on
 * it. The body reaches the SDK unparsed: malformed JSON and wrong media types get the SDK's own
 * JSON-RPC answers. A client that goes away aborts the exchange.
 */
export async function serveMcp(handler: McpHttpHandler, request: FastifyRequest, reply: FastifyReply, url: string, authInfo: AuthInfo) {
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
  }
  reply.raw.once('close', onClose)

  const body = request.body instanceof Buffer ? request.body : undefined
  const webRequest = new Request(url, { method: request.method, headers, body: body?.length ? body : undefined, signal: abort.signal })
  const response = await handler.fetch(webRequest, { authInfo })

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
