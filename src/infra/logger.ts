import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

/**
 * Secrets and personal data never reach the log. The request serializer below already drops
 * headers and query strings; these paths catch secrets in a request body or a logged object.
 * Exact paths only: wildcard paths make pino copy every log line and halve throughput.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'body.password',
  'body.token',
  'body.session_token',
  'body.claim_token',
  'body.access_token',
  'body.refresh_token',
  'body.assertion',
  'body.code',
  'body.code_verifier',
  'body.email',
  'body.login_hint',
  'body.payload.email',
  'session_token',
  'claim_token',
  'access_token',
  'refresh_token',
  'token',
  'email',
]

export function loggerOptions(config: Config) {
  return {
    level: config.LOG_LEVEL,
    redact: { paths: redactPaths, censor: '[redacted]' },
    // Only method and path: query strings may carry codes, tokens or a visitor's email.
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, path: req.url.split('?')[0], ip: req.ip }),
    },
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a well-formed incoming x-request-id (set by a load balancer) so logs join up; else a new UUID. */
export function genReqId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/** One log line per request, written when it completes, instead of Fastify's two. */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode, ms: Math.round(reply.elapsedTime) }
    if (error) request.log.error({ ...line, err: error }, 'request errored')
    else request.log.info(line, 'request')
  }
}
