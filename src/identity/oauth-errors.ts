import { Type } from 'typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { classify, logFailure } from '../errors.ts'

/** RFC 6749 section 5.2 error body, used by /oauth/* and /agent/identity*. */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String(),
    error_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

/**
 * An OAuth error: `error` and `error_description` go to the client, `detail` only to the log.
 * invalid_client answers 401; the claim endpoint's own codes carry their own status.
 */
export class OAuthError extends Error {
  readonly error: string
  readonly description: string
  readonly statusCode: number
  readonly detail: string | undefined
  readonly headers: Record<string, string>

  constructor(error: string, description: string, options: { status?: number; detail?: string; headers?: Record<string, string> } = {}) {
    super(description)
    this.name = 'OAuthError'
    this.error = error
    this.description = description
    this.statusCode = options.status ?? (error === 'invalid_client' ? 401 : 400)
    this.detail = options.detail
    this.headers = options.headers ?? {}
  }
}

export const invalidRequest = (description: string, detail?: string) => new OAuthError('invalid_request', description, { detail })
export const invalidGrant = (description: string, detail?: string) => new OAuthError('invalid_grant', description, { detail })
export const invalidClient = (detail?: string) => new OAuthError('invalid_client', 'Client authentication failed', { detail })

const frameworkToOAuth = (status: number): string => {
  if (status === 429) return 'rate_limited'
  if (status === 503) return 'temporarily_unavailable'
  if (status >= 500) return 'server_error'
  return 'invalid_request'
}

/**
 * The error handler of the OAuth scope. Framework errors (validation, bad JSON, body too large,
 * rate limit, database away) keep the status `classify()` gives them but speak RFC 6749.
 */
export function oauthErrorHandler(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OAuthError) {
    request.log.info({ code: error.error, status: error.statusCode, reason: error.detail ?? error.description }, 'request refused')
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
    return reply.code(error.statusCode).type('application/json; charset=utf-8').send({ error: error.error, error_description: error.description })
  }
  const classified = classify(error)
  logFailure(request, error, classified)
  return reply
    .code(classified.status)
    .type('application/json; charset=utf-8')
    .send({ error: frameworkToOAuth(classified.status), error_description: classified.detail })
}

export function oauthNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).type('application/json; charset=utf-8').send({ error: 'not_found', error_description: `No endpoint at ${request.method} ${request.url.split('?')[0]}` })
}
