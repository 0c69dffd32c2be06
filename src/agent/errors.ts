import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { classify, logFailure } from '../errors.ts'

/**
 * The error codes of /api/agent (the `error` field of AgentError). Kebab case like the contract's
 * own `turn-in-progress`; the status is kept beside the code, never derived from it.
 */
export const agentErrors = {
  invalidRequest: { status: 400, error: 'invalid-request' },
  invalidSessionId: { status: 400, error: 'invalid-session-id' },
  malformedJson: { status: 400, error: 'malformed-json' },
  bodyTooLarge: { status: 400, error: 'body-too-large' },
  unsupportedMediaType: { status: 400, error: 'unsupported-media-type' },
  invalidConsent: { status: 400, error: 'invalid-consent-evidence' },
  featureDisabled: { status: 404, error: 'feature-disabled' },
  sessionNotFound: { status: 404, error: 'session-not-found' },
  notFound: { status: 404, error: 'not-found' },
  payloadMismatch: { status: 409, error: 'payload-mismatch' },
  localeMismatch: { status: 409, error: 'locale-mismatch' },
  consentVersionMismatch: { status: 409, error: 'consent-version-mismatch' },
  unavailable: { status: 503, error: 'agent-unavailable' },
  persistenceUnavailable: { status: 503, error: 'persistence-unavailable' },
  erasureUnavailable: { status: 503, error: 'erasure-unavailable' },
} as const

export type AgentErrorKind = keyof typeof agentErrors

/**
 * The largest request body /api/agent reads: a 2000-character message, a 500-character url and a
 * 1000-character note fit many times over even in 4-byte characters; anything bigger is refused
 * before it is parsed.
 */
export const AGENT_BODY_LIMIT = 32 * 1024

/** A refusal of the sales-assistant interface; the error handler turns it into its contract body. */
export class AgentHttpError extends Error {
  readonly statusCode: number
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>

  constructor(statusCode: number, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    super(String(body['error']))
    this.name = 'AgentHttpError'
    this.statusCode = statusCode
    this.body = body
    this.headers = headers
  }
}

export function agentError(kind: AgentErrorKind): AgentHttpError {
  const { status, error } = agentErrors[kind]
  return new AgentHttpError(status, status >= 500 ? { error, contactFallback: true } : { error })
}

export function rateLimited(retryAfterSeconds: number): AgentHttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds))
  return new AgentHttpError(
    429,
    { error: 'Too many requests; retry later', code: 'RATE_LIMITED', retryAfterSeconds: seconds },
    { 'retry-after': String(seconds) },
  )
}

export function turnInProgress(retryAfterSeconds: number): AgentHttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds))
  return new AgentHttpError(409, { error: 'turn-in-progress', retry_after_seconds: seconds }, { 'retry-after': String(seconds) })
}

const frameworkKinds: Record<string, AgentErrorKind> = {
  malformed_json: 'malformedJson',
  body_too_large: 'bodyTooLarge',
  unsupported_media_type: 'unsupportedMediaType',
}

/** Which 503 a route answers when the database is away. */
export type UnavailableKind = 'unavailable' | 'persistenceUnavailable' | 'erasureUnavailable'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 503 this route answers when its storage cannot be reached. */
    agentUnavailable?: UnavailableKind
  }
}

function toAgentError(error: FastifyError, request: FastifyRequest): AgentHttpError {
  if (error instanceof AgentHttpError) return error
  const classified = classify(error)
  logFailure(request, error, classified)
  if (error.validation) {
    // A session id that breaks its pattern or length is named as such (INTERFACE.md 4.2: "400 invalid session id").
    const onSessionId = error.validation.some((v) => v.instancePath === '/session_id')
    return agentError(onSessionId ? 'invalidSessionId' : 'invalidRequest')
  }
  if (classified.status === 429) return rateLimited(1)
  if (classified.status === 404) return agentError('notFound')
  if (classified.status < 500) return agentError(frameworkKinds[classified.code] ?? 'invalidRequest')
  // Every failure of ours reads to the widget as "unavailable": it then offers its contact fallback.
  return agentError(request.routeOptions.config?.agentUnavailable ?? 'unavailable')
}

/** The error handler of /api/agent: only AgentError, AgentRateLimitError and AgentTurnInProgressError bodies. */
export function agentErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const agent = toAgentError(error, request)
  if (error instanceof AgentHttpError && agent.statusCode >= 400 && agent.statusCode < 500) {
    request.log.info({ status: agent.statusCode, code: agent.body['error'] }, 'request refused')
  }
  return reply.code(agent.statusCode).headers(agent.headers).type('application/json; charset=utf-8').send(agent.body)
}

export function agentNotFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).type('application/json; charset=utf-8').send({ error: agentErrors.notFound.error })
}
