import { Type, type Static, type TProperties, type TSchema } from 'typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify'
import { pageOf } from '../domain/paging.ts'
import { errors } from '../errors.ts'
import { etagOf, ifMatchHolds } from '../infra/etag.ts'
import { checkedCompiler } from '../infra/unsafe-values.ts'
import { Problem } from '../schemas.ts'

/**
 * The conventions every /v1 resource shares (DESIGN.md 7): the list envelope and its paging
 * query, ETags with If-Match, 201 with Location, 404 for anything the account cannot see, and
 * the problem answers each route documents.
 */

// Optional with defaults, so the document (and clients generated from it) do not demand them.
const PAGING = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items a page, 1 to 100.' })),
}

/** `?page` and `?per_page`; unknown query parameters are refused like unknown body fields. */
export const ListQuery = Type.Object(PAGING, { additionalProperties: false })
export type ListQuery = Static<typeof ListQuery>

/** A list query with filters beside the paging parameters. */
export function listQuery<P extends TProperties>(filters: P) {
  return Type.Object({ ...PAGING, ...filters }, { additionalProperties: false })
}

export { pageOf }

export const ListMeta = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Items matching the query on every page.' }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  { additionalProperties: false },
)

/** The list envelope of INTERFACE.md 2.4: `{data, meta: {total, page, per_page}}`. */
export function ListEnvelope<T extends TSchema>(item: T, description = 'One page of the list') {
  return Type.Object({ data: Type.Array(item), meta: ListMeta }, { additionalProperties: false, description })
}

export function envelope<T>(data: T[], total: number, page: number, perPage: number) {
  return { data, meta: { total, page, per_page: perPage } }
}

/** The page the query asks for of a list read whole (one that stays short, such as the account's members). */
export function envelopeOfAll<T>(items: T[], query: { page?: number; per_page?: number }) {
  const { limit, offset, page, perPage } = pageOf(query)
  return envelope(items.slice(offset, offset + limit), items.length, page, perPage)
}

export { etagOf }

export function sendItem<T>(reply: FastifyReply, item: T, etagSource?: unknown): FastifyReply {
  return reply.header('etag', etagOf(etagSource ?? item)).send(item)
}

/**
 * RFC 9110 13.1.1: with If-Match the change goes ahead only when one of the listed tags (strong
 * comparison) is the current one, or the header is `*`. Without the header nothing is checked.
 */
export function assertIfMatch(request: FastifyRequest, currentEtag: string): void {
  if (ifMatchHolds(request.headers['if-match'], currentEtag)) return
  throw new errors.preconditionFailed('The resource has changed since the ETag given in If-Match')
}

/** The 404 of a resource that does not exist or belongs to another account (never 403). */
export function notFound(what: string): Error {
  return new errors.notFound(`${what} not found`)
}

const problem = (description: string) => Type.Object(Problem.properties, { additionalProperties: false, description })

/** The problem answers a /v1 route may give; spread into `schema.response` beside its own. */
export const ProblemResponses = {
  400: problem('The request is invalid (code validation_failed, malformed_json, bad_request)'),
  401: problem('No valid credential (code invalid_token or invalid_request); see WWW-Authenticate'),
  403: problem(
    'The plan does not allow the call (plan_required, plan_limit), the token lacks a scope (insufficient_scope) or the member’s role does not allow it (role_required)',
  ),
  404: problem('No such resource for this account (not_found)'),
  409: problem('A conflict with the current state, or the Idempotency-Key is in use (idempotency_in_progress)'),
  412: problem('If-Match does not name the current ETag (precondition_failed)'),
  422: problem('The Idempotency-Key was used with another body (idempotency_key_reused) or the request cannot be processed'),
  429: problem('Above the hourly quota (rate_limited); see Retry-After'),
}

/** The ETag header of an item answer, for OpenAPI. */
export const ETagHeader = {
  type: 'string',
  description: 'Strong entity tag; send it in If-Match to change the item only if unchanged.',
} as const

/**
 * Validation of /v1: a JSON body is taken exactly as typed (a number is not a name), while path
 * and query values, which arrive as text, are converted to the types their schemas declare.
 * A POST without a body (Fastify hands the validator null) is validated as `{}`, so actions whose
 * fields are all optional need none. No value may carry U+0000 or a lone surrogate, or be a number that is not finite.
 */
export function restValidatorCompiler(): FastifySchemaCompiler<TSchema> {
  const strict = checkedCompiler(false)
  const lenient = checkedCompiler(true)
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict(schema, (data) => data ?? {}) : lenient(schema))
}

/**
 * JSON bodies of /v1, where an empty body counts as no body: many clients send
 * `Content-Type: application/json` on every request, a DELETE or a bodiless action included.
 * Schema validation then decides, so a route that needs a body still answers validation_failed.
 */
export function acceptEmptyJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) {
      done(null, undefined)
      return
    }
    parseJson(request, body as string, done)
  })
}
