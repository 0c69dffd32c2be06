import type { FastifyError, FastifyRequest } from 'fastify'
// graphql 16 ships a CommonJS and an ESM build: the CommonJS entry is the one mercurius loads, so
// every loader (Node, the test runner) sees one instance of its classes.
import { GraphQLError } from 'graphql/index.js'
import { classify, logFailure } from '../errors.ts'

/**
 * The codes of `extensions.code` (DESIGN.md 13). Registry errors keep their own code beside it as
 * `extensions.reason` (plan_required, page_path_taken, …), so a client can narrow further.
 */
export type GraphqlCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'PRECONDITION_FAILED'
  | 'QUERY_TOO_COMPLEX'
  | 'PERSISTED_QUERY_NOT_FOUND'
  | 'RATE_LIMITED'
  | 'BAD_REQUEST'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR'

export interface GraphqlExtensions {
  code: GraphqlCode
  [key: string]: unknown
}

/** A refusal decided in this room, already in GraphQL's terms. */
export class GraphqlRefusal extends Error {
  readonly extensions: GraphqlExtensions
  readonly statusCode: number

  constructor(message: string, extensions: GraphqlExtensions, statusCode = 400) {
    super(message)
    this.name = 'GraphqlRefusal'
    this.extensions = extensions
    this.statusCode = statusCode
  }
}

/** BAD_USER_INPUT naming the argument or input field (GraphQL's camelCase name). */
export function badInput(message: string, field?: string, reason = 'validation_failed'): GraphqlRefusal {
  return new GraphqlRefusal(message, { code: 'BAD_USER_INPUT', reason, ...(field === undefined ? {} : { field }) })
}

/** What a failure means to a GraphQL client, and the HTTP status it has when it ends the request. */
export interface MappedError {
  message: string
  extensions: GraphqlExtensions
  status: number
  headers?: Record<string, string>
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())

/** The field a registry message names ("The field 'content.items' …"), in GraphQL's spelling. */
function fieldOf(message: string): string | undefined {
  const named = /^The field '([^']+)'/.exec(message)?.[1]
  return named === undefined ? undefined : named.split('.').map(camel).join('.')
}

/** Names a registry message gives fields in, turned into GraphQL's: "'default_locale'" → "'defaultLocale'". */
export function graphqlWording(message: string): string {
  return message.replace(/'([a-z0-9_.]+)'/g, (_match, name: string) => `'${name.split('.').map(camel).join('.')}'`)
}

/** Refusals of the HTTP request itself, before any GraphQL was read. */
const REQUEST_CODES: ReadonlySet<string> = new Set([
  'bad_request',
  'malformed_json',
  'body_too_large',
  'unsupported_media_type',
  'uri_too_long',
  'method_not_allowed',
])

/** SQLSTATE 23503: a change referred to a row deleted meanwhile by a concurrent call (as /v1 answers it: not found). */
function goneMeanwhile(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503'
}

/**
 * Any failure as GraphQL shows it: the registry's errors by their status and code, refusals of
 * this room as they were made, and anything else as INTERNAL_SERVER_ERROR (logged in full, never
 * shown: no stack, SQL or driver message reaches a client).
 */
export function mapError(error: unknown, request?: FastifyRequest): MappedError {
  if (error instanceof GraphqlRefusal) return { message: error.message, extensions: error.extensions, status: error.statusCode }
  if (error instanceof GraphQLError && typeof error.extensions['code'] === 'string')
    return { message: error.message, extensions: error.extensions as GraphqlExtensions, status: 400 }
  if (goneMeanwhile(error))
    return {
      message: 'A resource this request refers to was not found',
      extensions: { code: 'NOT_FOUND', reason: 'not_found' },
      status: 404,
    }
  const classified = classify(error as FastifyError)
  if (request) logFailure(request, error as FastifyError, classified)
  const { status, code, detail, headers } = classified
  const with_ = (graphqlCode: GraphqlCode, extra: Record<string, unknown> = {}): MappedError => ({
    message: graphqlWording(detail),
    extensions: { code: graphqlCode, reason: code, ...extra },
    status,
    ...(headers ? { headers } : {}),
  })
  if (status === 401) return with_('UNAUTHENTICATED')
  if (status === 403) return with_('FORBIDDEN')
  if (status === 404) return with_('NOT_FOUND')
  if (status === 412) return with_('PRECONDITION_FAILED')
  if (status === 429) return with_('RATE_LIMITED')
  if (status === 503) return with_('SERVICE_UNAVAILABLE')
  if (REQUEST_CODES.has(code)) return with_('BAD_REQUEST')
  if (status >= 500) return { message: 'An unexpected error occurred', extensions: { code: 'INTERNAL_SERVER_ERROR' }, status: 500 }
  const field = fieldOf(detail)
  return with_('BAD_USER_INPUT', field === undefined ? {} : { field })
}

/** A resolver's failure as the GraphQL error it becomes (for the paths mercurius does not format: subscriptions). */
export function toGraphqlError(error: unknown, request?: FastifyRequest): GraphQLError {
  const mapped = mapError(error, request)
  return new GraphQLError(mapped.message, { extensions: mapped.extensions })
}
