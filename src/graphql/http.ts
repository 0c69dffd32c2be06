import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { ExecutionResult, GraphQLError } from 'graphql/index.js'
import { validationMessage, type ValidationIssue } from '../errors.ts'
import type { GraphqlContext } from './context.ts'
import { GraphqlRefusal, mapError, type GraphqlExtensions } from './errors.ts'
import { costOfRequest } from './limits.ts'

/**
 * GraphQL over HTTP (DESIGN.md 13): answers are `application/graphql-response+json` when the
 * client accepts it, else `application/json`. A request that cannot run (no valid document, too
 * complex, an unknown persisted query) is 400 with the former and 200 with the latter, as the
 * GraphQL-over-HTTP specification asks; the frame's refusals keep their own status everywhere
 * (401 with WWW-Authenticate, 403, 429 with Retry-After). Every answer carries
 * `extensions.cost {requested, limit}`.
 */

export const GRAPHQL_RESPONSE = 'application/graphql-response+json'

export function acceptsGraphqlResponse(request: FastifyRequest): boolean {
  const accept = request.headers.accept
  return (
    accept !== undefined &&
    accept.split(',').some((part) => {
      const [type, ...params] = part.trim().split(';')
      return type?.trim().toLowerCase() === GRAPHQL_RESPONSE && !params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param))
    })
  )
}

interface WireError {
  message: string
  locations?: ReadonlyArray<{ line: number; column: number }>
  path?: ReadonlyArray<string | number>
  extensions: GraphqlExtensions
}

interface RequestFailure {
  errors: WireError[]
  /** The status whatever the client accepts (the frame's refusals); else decided by the media type. */
  status?: number
  headers?: Record<string, string>
}

/** One of mercurius's errors about the document or the request, by what it says. */
function documentError(error: GraphQLError | (Error & { validation?: unknown; extensions?: unknown })): WireError {
  const locations = (error as GraphQLError).locations
  const at = locations ? { locations } : {}
  if ('validation' in error && error.validation) {
    const context = (error as { validationContext?: string }).validationContext ?? 'body'
    return { message: validationMessage(error.validation as ValidationIssue[], context).message, extensions: { code: 'BAD_REQUEST' } }
  }
  const given = (error.extensions as Partial<GraphqlExtensions> | undefined)?.code
  if (given) return { message: error.message, ...at, extensions: error.extensions as GraphqlExtensions }
  if (error.message.startsWith('Syntax Error')) return { message: error.message, ...at, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }
  if (error.message.startsWith('Variable "$')) return { message: error.message, ...at, extensions: { code: 'BAD_USER_INPUT' } }
  return { message: error.message, ...at, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }
}

function requestFailure(error: FastifyError & { errors?: GraphQLError[] }, request: FastifyRequest): RequestFailure {
  switch (error.code) {
    case 'MER_ERR_GQL_VALIDATION':
      if (error.errors?.length) return { errors: error.errors.map(documentError) }
      return { errors: [{ message: 'The variables or extensions are not valid JSON', extensions: { code: 'BAD_REQUEST' } }] }
    case 'MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND':
      return error.message === 'PersistedQueryNotFound'
        ? { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] }
        : { errors: [{ message: 'The request has no query', extensions: { code: 'BAD_REQUEST' } }] }
    case 'MER_ERR_GQL_PERSISTED_QUERY_NOT_SUPPORTED':
      return {
        errors: [{ message: 'Persisted queries are version 1 with a sha256Hash of 64 hex digits', extensions: { code: 'BAD_REQUEST' } }],
      }
    case 'MER_ERR_GQL_PERSISTED_QUERY_MISMATCH':
      return {
        errors: [
          {
            message: 'The sha256Hash does not match the query',
            extensions: { code: 'BAD_USER_INPUT', reason: 'persisted_query_mismatch' },
          },
        ],
      }
    case 'MER_ERR_METHOD_NOT_ALLOWED':
      return {
        errors: [{ message: 'Only queries may be sent with GET; send a mutation with POST', extensions: { code: 'BAD_REQUEST' } }],
        status: 405,
        headers: { allow: 'POST' },
      }
  }
  const mapped = mapError(error, request)
  const own = error instanceof GraphqlRefusal
  return {
    errors: [{ message: mapped.message, extensions: mapped.extensions }],
    ...(own ? {} : { status: mapped.status }),
    ...(mapped.headers ? { headers: mapped.headers } : {}),
  }
}

/** mercurius's `errorHandler`: a request that did not run, answered in GraphQL's shape. */
export async function requestErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const failure = requestFailure(error, request)
  const status = failure.status ?? (acceptsGraphqlResponse(request) ? 400 : 200)
  if (failure.headers) reply.headers(failure.headers)
  reply.header('cache-control', 'no-store')
  return reply.code(status).send({ errors: failure.errors, extensions: { cost: costOfRequest(request) } })
}

/**
 * mercurius's `errorFormatter`: the errors of fields that failed while the others kept their data.
 * Each says what went wrong in the registry's words (NOT_FOUND, FORBIDDEN with its reason,
 * BAD_USER_INPUT naming the field, …); anything unforeseen is INTERNAL_SERVER_ERROR, logged in full.
 */
export function errorFormatter(execution: ExecutionResult & { statusCode?: number }, context: GraphqlContext) {
  const request = context.reply?.request ?? context.request
  const errors = (execution.errors ?? []).map((error): WireError => {
    const located = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) }
    const cause = error.originalError ?? error
    const mapped = mapError(cause, request)
    return { message: mapped.message, ...located, extensions: mapped.extensions }
  })
  return { statusCode: 200, response: { data: execution.data ?? null, errors } }
}
