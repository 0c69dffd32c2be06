import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

/**
 * Secrets and personal data never reach the log: the paths below cover headers, bodies and
 * objects the rooms log. Emails are personal data too.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.session_token',
  '*.claim_token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.assertion',
  '*.identity_assertion',
  '*.code_verifier',
  '*.client_secret',
  '*.email',
  '*.login_hint',
  'body.session_token',
  'body.claim_token',
  'body.email',
  'body.payload.email',
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
