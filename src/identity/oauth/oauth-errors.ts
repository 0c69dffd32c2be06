import { Type } from 'typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { classify, logFailure, OAUTH_ERRORS, type OAuthErrorCode } from '../../errors.ts'

/** RFC 6749 section 5.2 error body, used by /oauth/* and /agent/identity*. */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String(),
    error_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

/** An OAuth error: `error` and `error_description` go to the client, `detail` only to the log. */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode
  readonly description: string
  readonly statusCode: number
  readonly detail: string | undefined
  readonly headers: Record<string, string>

  constructor(error: OAuthErrorCode, description: string, options: { detail?: string; headers?: Record<string, string> } = {}) {
    super(description)
    this.name = 'OAuthError'
    this.error = error
    this.description = description
    this.statusCode = OAUTH_ERRORS[error]
    this.detail = options.detail
    this.headers = options.headers ?? {}
  }
}

export const invalidRequest = (description: string, detail?: string) => new OAuthError('invalid_request', description, { detail })
export const invalidGrant = (description: string, detail?: string) => new OAuthError('invalid_grant', description, { detail })
export const invalidClient = (detail?: string) => new OAuthError('invalid_client', 'Client authentication failed', { detail })

const frameworkToOAuth = (status: number): OAuthErrorCode => {
  if (status === 429) return 'rate_limited'
  if (status === 503) return 'temporarily_unavailable'
  if (status >= 500) return 'server_error'
  return 'invalid_request'
}

function sendOAuthError(reply: FastifyReply, status: number, error: OAuthErrorCode, description: string) {
  return reply.code(status).type('application/json; charset=utf-8').send({ error, error_description: description })
}

/**
 * The error handler of the OAuth scope. Framework errors (validation, bad JSON, body too large,
 * rate limit, database away) keep the status `classify()` gives them but speak RFC 6749.
 */
export function oauthErrorHandler(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OAuthError) {
    request.log.info({ code: error.error, status: error.statusCode, reason: error.detail ?? error.description }, 'request refused')
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
    return sendOAuthError(reply, error.statusCode, error.error, error.description)
  }
  const classified = classify(error)
  logFailure(request, error, classified)
  return sendOAuthError(reply, classified.status, frameworkToOAuth(classified.status), classified.detail)
}

/**
 * What /oauth/* and /agent/identity* answer for a path or method nobody serves: 405 with Allow
 * where the path exists (RFC 9110 15.5.6), else 404, both in the RFC 6749 shape of the scope.
 * Answered before the body is read, so a refused method costs no parsing.
 */
export function unrouted(allowed: ReadonlyMap<string, ReadonlySet<string>>) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    const path = request.url.split('?', 1)[0] ?? ''
    const methods = allowed.get(path)
    if (!methods) return sendOAuthError(reply, 404, 'not_found', 'There is no endpoint at this path')
    const allow = [...methods].join(', ')
    reply.header('allow', allow)
    return sendOAuthError(reply, 405, 'method_not_allowed', `${request.method} is not allowed here; allowed: ${allow}`)
  }
}
