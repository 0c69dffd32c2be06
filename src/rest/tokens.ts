import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  API_SCOPES,
  apiTokenVersion,
  createApiToken,
  findApiToken,
  listApiTokens,
  mayRotate,
  revokeApiToken,
  rotateApiToken,
  ROTATION_GRACE_DEFAULT,
  ROTATION_GRACE_MAX,
  tokenHolder,
  toApiToken,
} from '../domain/accounts/api-tokens.ts'
import { errors } from '../errors.ts'
import { literalUnion } from '../schemas.ts'
import { answerChange, auditedChange } from './audited-change.ts'
import { assertIfMatch, envelope, etagOf, ListEnvelope, ListQuery, notFound, pageOf, sendItem } from './http.ts'

const Scope = literalUnion(API_SCOPES)
const TokenId = Type.String({ pattern: '^tok_[A-Za-z0-9_-]{22}$', description: 'tok_…' })

const tokenFields = {
  id: TokenId,
  user_id: Type.Union([Type.String({ description: 'usr_…' }), Type.Null()], {
    description:
      'The member who made the token; it acts with their role. Null for a token the operator made for the account (it acts as an owner).',
  }),
  name: Type.String(),
  scopes: Type.Array(Scope),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Recorded to the minute.' }),
}
const Token = Type.Object(tokenFields, { additionalProperties: false, description: 'An API token (never its secret)' })
const TokenWithSecret = Type.Object(
  { ...tokenFields, token: Type.String({ description: 'The secret, `wps_<id>_…`: shown here once, never again.' }) },
  { additionalProperties: false, description: 'The token with its secret, shown once' },
)
const RotatedToken = Type.Object(
  {
    ...TokenWithSecret.properties,
    previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Until when the replaced secret still works; null when it stopped at once.',
    }),
  },
  { additionalProperties: false, description: 'The token with its new secret, shown once' },
)

const NewToken = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Scope, { minItems: 1, maxItems: API_SCOPES.length, uniqueItems: true }),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the token stops working; none by default.' })),
  },
  { additionalProperties: false },
)
const Rotation = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROTATION_GRACE_MAX,
        default: ROTATION_GRACE_DEFAULT,
        description: 'How long the old secret keeps working; 0 stops it at once.',
      }),
    ),
  },
  { additionalProperties: false },
)
const IdParams = Type.Object({ id: TokenId }, { additionalProperties: false })

/**
 * API tokens of the account (DESIGN.md 7): list and read without secrets, create (the secret
 * once), rotate in one click with a grace period, revoke. Token management needs manage:tokens
 * and works on every plan with API access; a token can hand out only scopes it holds itself.
 * A token acts as the member who made it; an owner manages every token of the account, any other
 * member only their own (the others' are not found). A token's ETag changes when it is rotated, never when it is used (apiTokenVersion).
 */
export default async function tokenRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()

  typed.get(
    '/tokens',
    {
      config: { operation: 'tokens.list', scope: 'manage:tokens', access: 'read' },
      schema: {
        summary: 'List API tokens',
        tags: ['tokens'],
        querystring: ListQuery,
        response: { 200: ListEnvelope(Token, 'API tokens, newest first') },
      },
    },
    async (request) => {
      const { limit, offset, page, perPage } = pageOf(request.query)
      const { rows, total } = await listApiTokens(app.db, request.principal.accountId, { limit, offset }, tokenHolder(request.principal))
      return envelope(rows, total, page, perPage)
    },
  )

  typed.post(
    '/tokens',
    {
      config: { operation: 'tokens.create', scope: 'manage:tokens', access: 'read' },
      schema: { summary: 'Create an API token', tags: ['tokens'], body: NewToken, response: { 201: TokenWithSecret } },
    },
    async (request, reply) => {
      const { name, scopes, expires_at: expiresAt } = request.body
      const missing = scopes.filter((scope) => !request.principal.scopes.includes(scope))
      if (missing.length) throw new errors.insufficientScope(`A token can only grant scopes it holds itself; missing ${missing.join(' ')}`)
      const expires = expiresAt === undefined ? null : new Date(expiresAt)
      if (expires && expires.getTime() <= Date.now()) throw new errors.validationFailed("The field 'expires_at' must be in the future")
      return answerChange(
        request,
        reply,
        (trx) =>
          createApiToken(trx, {
            accountId: request.principal.accountId,
            userId: request.principal.userId,
            name,
            scopes,
            expiresAt: expires,
          }),
        (created) => ({
          status: 201,
          body: { ...created.token, token: created.secret },
          location: `/v1/tokens/${created.token.id}`,
          etagSource: apiTokenVersion(created.row),
        }),
      )
    },
  )

  typed.get(
    '/tokens/:id',
    {
      config: { operation: 'tokens.get', scope: 'manage:tokens', access: 'read' },
      schema: { summary: 'Get an API token (never its secret)', tags: ['tokens'], params: IdParams, response: { 200: Token } },
    },
    async (request, reply) => {
      const row = await findApiToken(app.db, request.principal.accountId, request.params.id, false, tokenHolder(request.principal))
      if (!row) throw notFound('Token')
      return sendItem(reply, toApiToken(row), apiTokenVersion(row))
    },
  )

  typed.post(
    '/tokens/:id/rotate',
    {
      config: { operation: 'tokens.rotate', scope: 'manage:tokens', access: 'read', etag: [200] },
      schema: {
        summary: 'Rotate a token’s secret, keeping the old one for a grace period',
        tags: ['tokens'],
        params: IdParams,
        body: Rotation,
        response: { 200: RotatedToken },
      },
    },
    async (request, reply) => {
      const grace = request.body?.grace_seconds ?? ROTATION_GRACE_DEFAULT
      return answerChange(
        request,
        reply,
        async (trx) => {
          const current = await findApiToken(trx, request.principal.accountId, request.params.id, true, tokenHolder(request.principal))
          if (!current) throw notFound('Token')
          if (!mayRotate(current, request.principal)) {
            throw new errors.forbidden('Only the member who made this token may rotate it; an owner may revoke it')
          }
          return rotateApiToken(trx, current.id, grace)
        },
        (rotated) => ({
          status: 200,
          body: {
            ...rotated.token,
            token: rotated.secret,
            previous_secret_expires_at: rotated.row.previous_expires_at?.toISOString() ?? null,
          },
          etagSource: apiTokenVersion(rotated.row),
        }),
      )
    },
  )

  typed.delete(
    '/tokens/:id',
    {
      config: { operation: 'tokens.revoke', scope: 'manage:tokens', access: 'read' },
      schema: {
        summary: 'Revoke a token at once (both secrets of a rotation)',
        tags: ['tokens'],
        params: IdParams,
        response: { 204: Type.Null({ description: 'Revoked' }) },
      },
    },
    async (request, reply) => {
      await auditedChange(
        request,
        async (trx) => {
          const current = await findApiToken(trx, request.principal.accountId, request.params.id, true, tokenHolder(request.principal))
          if (!current) throw notFound('Token')
          assertIfMatch(request, etagOf(apiTokenVersion(current)))
          await revokeApiToken(trx, current.id)
        },
        204,
      )
      return reply.code(204).send(null)
    },
  )
}
