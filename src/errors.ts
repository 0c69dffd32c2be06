import { STATUS_CODES } from 'node:http'
import createError from '@fastify/error'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from './infra/db.ts'

/**
 * One registry of the service's error codes. The code is stable and machine-readable; the status
 * is kept beside it, never derived from it; the message is safe to show a client.
 */
export const errors = {
  badRequest: createError('bad_request', '%s', 400),
  validationFailed: createError('validation_failed', '%s', 400),
  malformedJson: createError('malformed_json', 'The request body is not valid JSON', 400),
  invalidDomain: createError('invalid_domain', '%s', 400),
  unauthorized: createError('unauthorized', '%s', 401),
  forbidden: createError('forbidden', '%s', 403),
  planRequired: createError('plan_required', '%s', 403),
  notFound: createError('not_found', '%s', 404),
  methodNotAllowed: createError('method_not_allowed', '%s', 405),
  conflict: createError('conflict', '%s', 409),
  bodyTooLarge: createError('body_too_large', 'The request body is larger than the service accepts', 413),
  unsupportedMediaType: createError('unsupported_media_type', '%s', 415),
  unprocessable: createError('unprocessable', '%s', 422),
  siteUnreachable: createError('site_unreachable', '%s', 422),
  rateLimited: createError('rate_limited', 'Too many requests; retry later', 429),
  internal: createError('internal_error', 'An unexpected error occurred', 500),
  serviceUnavailable: createError('service_unavailable', '%s', 503),
  notReady: createError('not_ready', '%s', 503),
  mcsUnavailable: createError('mcs_unavailable', '%s', 503),
  mcsBusy: createError('mcs_busy', '%s', 503),
  mcsFailed: createError('mcs_failed', '%s', 503),
  cwvUnavailable: createError('cwv_unavailable', '%s', 503),
  cruxUnavailable: createError('crux_unavailable', '%s', 503),
} as const

/** What any failure means to a client: a status, a stable code and a message safe to show. */
export interface Classified {
  status: number
  code: string
  detail: string
  /** True when the failure is ours (5xx) and the full error belongs in the log. */
  internal: boolean
}

const ourCodes: ReadonlySet<string> = new Set(Object.values(errors).map((E) => new E().code))
const INTERNAL = new errors.internal().code

const frameworkCodes: Record<string, { status: number; code: string; detail?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large', detail: 'The request body is larger than the service accepts' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json', detail: 'The request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', detail: 'The request body is empty but its content type is JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_request', detail: 'The Content-Length header does not match the body' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'bad_request', detail: 'The Content-Type header is invalid' },
  FST_ERR_BAD_URL: { status: 400, code: 'bad_request', detail: 'The request URL is malformed' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'bad_request' },
}

const statusCodes: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
}

export function classify(error: FastifyError): Classified {
  if (error.validation) {
    return { status: 400, code: 'validation_failed', detail: error.message, internal: false }
  }
  const framework = frameworkCodes[error.code]
  if (framework) return { status: framework.status, code: framework.code, detail: framework.detail ?? error.message, internal: false }
  if (ourCodes.has(error.code) && error.statusCode) {
    // @fastify/error upper-cases codes; the wire format is the lower-case code of the registry.
    // A registry error is a deliberate answer (a 503 for a missing provider, say), not a bug.
    return { status: error.statusCode, code: error.code.toLowerCase(), detail: error.message, internal: error.code === INTERNAL }
  }
  if (isDatabaseUnavailable(error)) {
    return { status: 503, code: 'service_unavailable', detail: 'The service is temporarily unavailable; try again shortly', internal: true }
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const detail = status === 429 ? 'Too many requests; retry later' : error.message
    return { status, code: statusCodes[status] ?? 'bad_request', detail, internal: false }
  }
  return { status: 500, code: 'internal_error', detail: 'An unexpected error occurred', internal: true }
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  code: string
}

export function problem(status: number, code: string, detail: string): Problem {
  return { type: `urn:problem-type:${code}`, title: STATUS_CODES[status] ?? 'Error', status, detail, code }
}

export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  return reply.code(status).type('application/problem+json; charset=utf-8').send(problem(status, code, detail))
}

/** Logs what the client must not see, once, with the request's context. */
export function logFailure(request: FastifyRequest, error: FastifyError, classified: Classified): void {
  if (classified.internal) request.log.error({ err: error, code: classified.code }, 'request failed')
  else request.log.info({ code: classified.code, status: classified.status, reason: error.message }, 'request refused')
}

/** The default error handler: RFC 9457 problem+json. Rooms with another contract set their own. */
export function problemErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  return sendProblem(reply, classified.status, classified.code, classified.detail)
}

export function problemNotFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendProblem(reply, 404, 'not_found', `No resource at ${request.method} ${request.url.split('?')[0]}`)
}
