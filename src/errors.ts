import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import createError from '@fastify/error'
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { Problem as ProblemSchema } from './schemas.ts'
import { isDatabaseUnavailable } from './infra/db.ts'
import { isClientAbort } from './infra/logger.ts'

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
  invalidToken: createError('invalid_token', '%s', 401),
  /** RFC 6750 3.1: an Authorization header that is not a bearer token. */
  invalidBearerRequest: createError('invalid_request', '%s', 401),
  forbidden: createError('forbidden', '%s', 403),
  planRequired: createError('plan_required', '%s', 403),
  planLimit: createError('plan_limit', '%s', 403),
  insufficientScope: createError('insufficient_scope', '%s', 403),
  /** The member's role (owner, editor, viewer) does not allow the action. */
  roleRequired: createError('role_required', '%s', 403),
  /** An agent nobody has claimed yet asked for an account's data. */
  claimRequired: createError('claim_required', '%s', 403),
  notFound: createError('not_found', '%s', 404),
  methodNotAllowed: createError('method_not_allowed', '%s', 405),
  conflict: createError('conflict', '%s', 409),
  idempotencyInProgress: createError('idempotency_in_progress', '%s', 409),
  preconditionFailed: createError('precondition_failed', '%s', 412),
  bodyTooLarge: createError('body_too_large', 'The request body is larger than the service accepts', 413),
  unsupportedMediaType: createError('unsupported_media_type', '%s', 415),
  unprocessable: createError('unprocessable', '%s', 422),
  idempotencyKeyReused: createError('idempotency_key_reused', '%s', 422),
  siteUnreachable: createError('site_unreachable', '%s', 422),
  rateLimited: createError('rate_limited', '%s', 429),
  internal: createError('internal_error', 'An unexpected error occurred', 500),
  serviceUnavailable: createError('service_unavailable', '%s', 503),
  notReady: createError('not_ready', '%s', 503),
  mcsUnavailable: createError('mcs_unavailable', '%s', 503),
  mcsBusy: createError('mcs_busy', '%s', 503),
  mcsFailed: createError('mcs_failed', '%s', 503),
  cwvUnavailable: createError('cwv_unavailable', '%s', 503),
  cruxUnavailable: createError('crux_unavailable', '%s', 503),
  // Site content (/v1 sites, pages, blocks, domains, builds, conversations)
  invalidHostname: createError('invalid_hostname', '%s', 400),
  invalidBlockContent: createError('invalid_block_content', '%s', 400),
  pagePathTaken: createError('page_path_taken', '%s', 409),
  /** A redirect that would lead back to where it starts (DESIGN.md 19). */
  redirectLoop: createError('redirect_loop', '%s', 422),
  redirectFromTaken: createError('redirect_from_taken', '%s', 409),
  // Your data (DESIGN.md 19)
  accountNameMismatch: createError('account_name_mismatch', '%s', 422),
  lastOwner: createError('last_owner', '%s', 409),
  /** The account waits to be erased: its credentials answer nothing until an owner restores it. */
  accountSuspended: createError('account_suspended', '%s', 403),
  hostnameTaken: createError('hostname_taken', '%s', 409),
  invalidSubdomain: createError('invalid_subdomain', '%s', 400),
  subdomainTaken: createError('subdomain_taken', '%s', 409),
  localeInUse: createError('locale_in_use', '%s', 409),
  siteNotBuilt: createError('site_not_built', '%s', 409),
  buildNotRollbackable: createError('build_not_rollbackable', '%s', 409),
  handoffStateConflict: createError('handoff_state_conflict', '%s', 409),
  invalidLocales: createError('invalid_locales', '%s', 422),
  localeNotOnSite: createError('locale_not_on_site', '%s', 422),
  positionOutOfRange: createError('position_out_of_range', '%s', 422),
  // Webhooks, audits and social posts (/v1 webhooks, audits, social-accounts, social-posts)
  invalidWebhookUrl: createError('invalid_webhook_url', '%s', 400),
  invalidReplayWindow: createError('invalid_replay_window', '%s', 400),
  rotationInProgress: createError('rotation_in_progress', '%s', 409),
  endpointDisabled: createError('endpoint_disabled', '%s', 409),
  postTooLong: createError('post_too_long', '%s', 400),
  siteHasNoDomain: createError('site_has_no_domain', '%s', 409),
  // The media library (/v1 media, import_media, importMedia)
  invalidImage: createError('invalid_image', '%s', 422),
  payloadTooLarge: createError('payload_too_large', '%s', 413),
  mediaInUse: createError('media_in_use', '%s', 409),
  mediaBusy: createError('media_busy', '%s', 503),
  // Billing (/v1/account/billing, /app/billing, /webhooks/stripe)
  billingUnavailable: createError('billing_unavailable', '%s', 503),
  /** The operator set the account's plan by hand: it is changed by asking them. */
  billingManual: createError('billing_manual', '%s', 409),
  /** Stripe did not answer as it should (down, or refused what its own catalogue should allow). */
  billingProviderFailed: createError('billing_provider_failed', '%s', 502),
  invalidSignature: createError('invalid_signature', '%s', 400),
} as const

/**
 * OAuth's part of the registry (the RFC 6749 shape of /oauth/* and /agent/identity*). Every
 * `error` code the machine endpoints answer, with its HTTP status: RFC 6749 5.2 (token
 * endpoint), RFC 7009 and RFC 7591 (revocation, registration), RFC 8628 3.5 (the claim polls),
 * RFC 8707 (invalid_target) and the claim endpoint's own codes. One place, so a caller narrows on
 * a typed code and a status can never disagree between two routes.
 */
export const OAUTH_ERRORS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unsupported_grant_type: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  access_denied: 400,
  unsupported_identity_type: 400,
  invalid_claim_token: 401,
  not_found: 404,
  method_not_allowed: 405,
  claimed_or_in_flight: 409,
  claim_expired: 410,
  rate_limited: 429,
  server_error: 500,
  temporarily_unavailable: 503,
} as const satisfies Record<string, number>

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS

/**
 * The `error` codes the authorization endpoint sends back to the client in its redirect (RFC 6749
 * 4.1.2.1); they have no HTTP status of their own.
 */
export type OAuthRedirectErrorCode = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target' | 'access_denied'

/** What any failure means to a client: a status, a stable code and a message safe to show. */
export interface Classified {
  status: number
  code: string
  detail: string
  /** True when the failure is ours (5xx) and the full error belongs in the log. */
  internal: boolean
  /** Response headers the refusal carries (a WWW-Authenticate challenge, Retry-After). */
  headers?: Record<string, string>
}

/**
 * A registry error with the response headers its refusal must carry, so the code that decides
 * (the account frame, the bearer guard) need not hold the reply: every room's error handler
 * sends them with its own shape of the error.
 */
export function withHeaders<E extends Error>(error: E, headers: Record<string, string>): E {
  const own = (error as { headers?: Record<string, string> }).headers
  return Object.assign(error, { headers: { ...own, ...headers } })
}

function headersOf(error: unknown): Record<string, string> | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers
  return headers && typeof headers === 'object' ? (headers as Record<string, string>) : undefined
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
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', detail: 'A path segment of the request URL is too long' },
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

/** One failed rule of a schema, as the validator reports it (Ajv's error object). */
export interface ValidationIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
}

/** Query parameters that name a domain: a missing or invalid one is `invalid_domain` (INTERFACE.md 4.1). */
const DOMAIN_PARAMETERS: ReadonlySet<string> = new Set(['d', 'domain'])

const NOUNS: Record<string, string> = { body: 'field', querystring: 'query parameter', params: 'path parameter', headers: 'header' }

/**
 * The client's view of a schema failure: a short sentence naming the field, e.g. "The field
 * 'action' has an unsupported value". The validator's own text (schema paths, "anyOf", the rule
 * that failed) goes only to the log. Every error shape of the service (problem+json, RFC 6749,
 * the HTML pages, AgentError) builds its message from this one function.
 */
export function validationMessage(issues: readonly ValidationIssue[], context = 'body'): { field: string | undefined; message: string } {
  // Ajv reports the branches of an anyOf before the anyOf itself; the last issue is the outermost.
  const issue = issues[issues.length - 1] ?? issues[0]
  const noun = NOUNS[context] ?? 'field'
  const named =
    typeof issue?.params['missingProperty'] === 'string'
      ? issue.params['missingProperty']
      : typeof issue?.params['additionalProperty'] === 'string'
        ? issue.params['additionalProperty']
        : undefined
  const path = (issue?.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
  const field = [...path, ...(named === undefined ? [] : [named])].join('.') || undefined
  if (!issue || !field)
    return {
      field,
      message: context === 'body' ? 'The request body is not in the expected form' : `The ${noun}s are not in the expected form`,
    }
  const subject = `The ${noun} '${field.length > 64 ? `${field.slice(0, 64)}…` : field}'`
  const limit = issue.params['limit']
  switch (issue.keyword) {
    case 'required':
      return { field, message: `${subject} is required` }
    case 'additionalProperties':
      return { field, message: `${subject} is not accepted here` }
    case 'type':
      return { field, message: `${subject} must be ${article(String(issue.params['type']))}` }
    case 'minLength':
      return {
        field,
        message: limit === 1 ? `${subject} must not be empty` : `${subject} must be at least ${String(limit)} characters long`,
      }
    case 'maxLength':
      return { field, message: `${subject} must be at most ${String(limit)} characters long` }
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return { field, message: `${subject} is out of range` }
    case 'minItems':
    case 'maxItems':
    case 'uniqueItems':
      return { field, message: `${subject} has the wrong number of items` }
    case 'pattern':
    case 'format':
      return { field, message: `${subject} is not in the expected format` }
    default:
      // const, enum, anyOf, oneOf and anything rarer: the value is not one the service accepts.
      return { field, message: `${subject} has an unsupported value` }
  }
}

function article(type: string): string {
  const first = type.split(',')[0] ?? type
  return `${/^[aeiou]/.test(first) ? 'an' : 'a'} ${first}`
}

export function classify(error: FastifyError): Classified {
  if (error.validation) {
    const context = (error as FastifyError & { validationContext?: string }).validationContext ?? 'body'
    const { field, message } = validationMessage(error.validation as unknown as ValidationIssue[], context)
    if (context === 'querystring' && field !== undefined && DOMAIN_PARAMETERS.has(field)) {
      return { status: 400, code: 'invalid_domain', detail: `The query parameter '${field}' must name a valid domain`, internal: false }
    }
    return { status: 400, code: 'validation_failed', detail: message, internal: false }
  }
  const framework = frameworkCodes[error.code]
  if (framework) return { status: framework.status, code: framework.code, detail: framework.detail ?? error.message, internal: false }
  if (ourCodes.has(error.code) && error.statusCode) {
    // @fastify/error upper-cases codes; the wire format is the lower-case code of the registry.
    // A registry error is a deliberate answer (a 503 for a missing provider, say), not a bug.
    const headers = headersOf(error)
    return {
      status: error.statusCode,
      code: error.code.toLowerCase(),
      detail: error.message,
      internal: error.code === INTERNAL,
      ...(headers ? { headers } : {}),
    }
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

/** The body of every problem+json answer, as its schema (src/schemas.ts) describes it. */
export type Problem = Static<typeof ProblemSchema>

export function problem(status: number, code: string, detail: string): Problem {
  return { type: `urn:problem-type:${code}`, title: STATUS_CODES[status] ?? 'Error', status, detail, code }
}

export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  return reply
    .code(status)
    .type('application/problem+json; charset=utf-8')
    .send(problem(status, code, detail))
}

/** Logs what the client must not see, once, with the request's context. */
export function logFailure(request: FastifyRequest, error: FastifyError, classified: Classified): void {
  if (isClientAbort(error, request))
    request.log.info({ code: classified.code, reason: error.code ?? error.name }, 'request aborted by the client')
  else if (classified.internal) request.log.error({ err: error, code: classified.code }, 'request failed')
  else request.log.info({ code: classified.code, status: classified.status, reason: error.message }, 'request refused')
}

/** The default error handler: RFC 9457 problem+json. Rooms with another contract set their own. */
export function problemErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  if (classified.headers) reply.headers(classified.headers)
  return sendProblem(reply, classified.status, classified.code, classified.detail)
}

export function problemNotFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendProblem(reply, 404, 'not_found', `No resource at ${request.method} ${request.url.split('?')[0]}`)
}

/**
 * The body of a refusal made before any route ran (a malformed URL, oversized headers, broken
 * HTTP). Only the path is known then, so the interface groups with their own error contract are
 * recognised by it: /api/agent answers AgentError, /oauth and /agent/identity RFC 6749, every
 * other path problem+json.
 */
export function preRouteRefusal(path: string, status: number, code: string, detail: string): { type: string; body: string } {
  if (path === '/api/agent' || path.startsWith('/api/agent/')) {
    return { type: 'application/json; charset=utf-8', body: JSON.stringify({ error: status === 404 ? 'not-found' : 'invalid-request' }) }
  }
  if (path.startsWith('/oauth/') || path === '/agent/identity' || path.startsWith('/agent/identity/')) {
    return { type: 'application/json; charset=utf-8', body: JSON.stringify({ error: 'invalid_request', error_description: detail }) }
  }
  return { type: 'application/problem+json; charset=utf-8', body: JSON.stringify(problem(status, code, detail)) }
}

/** Fastify's `frameworkErrors`: a URL the router cannot decode, a path segment over its limit. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const classified = classify(error)
  logFailure(request, error, classified)
  const { type, body } = preRouteRefusal(request.url.split('?')[0] ?? '', classified.status, classified.code, classified.detail)
  return reply.code(classified.status).header('x-request-id', request.id).header('cache-control', 'no-store').type(type).send(body)
}

const clientErrors: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    detail: 'The request line and headers are larger than the service accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', detail: 'The request took too long to arrive' },
  ERR_HTTP_HEADERS_TIMEOUT: { status: 408, code: 'request_timeout', detail: 'The request headers took too long to arrive' },
}
const badHttp = { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP' }

/** How long a refused connection may still deliver what it was sending before it is dropped. */
const REFUSED_LINGER_MS = 2000

/**
 * Node's `clientError`: the request broke HTTP before Fastify saw it. The answer is in the
 * documented shapes, carries `Connection: close` (the parser cannot continue on this connection)
 * and no body for HEAD. The socket is half-closed rather than destroyed: destroying it with
 * unread input makes the kernel send a reset that can discard the answer before the client reads it.
 */
export function clientErrorHandler(
  this: { log: FastifyBaseLogger },
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { status, code, detail } = clientErrors[error.code ?? ''] ?? badHttp
  this.log.info({ code, status, reason: error.code ?? error.message }, 'request refused before routing')
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (!socket.writable || pending?.headersSent) {
    socket.destroy()
    return
  }
  // Node hands over the bytes the parser failed on; the request line is there when it came in the same packet.
  const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 96).toString('latin1') : ''
  const line = /^([A-Z]{1,16}) (\S{1,64})/.exec(packet)
  const { type, body } = preRouteRefusal(line?.[2]?.split('?')[0] ?? '', status, code, detail)
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n`
  socket.end(line?.[1] === 'HEAD' ? head : head + body)
  socket.resume()
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref()
}
