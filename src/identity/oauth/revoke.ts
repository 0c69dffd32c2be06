import { decodeJwt } from 'jose'
import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { OAuthErrorBody } from './oauth-errors.ts'
import { denyJtis } from '../../infra/revocations.ts'
import { findRefreshToken, revokeFamily } from '../stores/refresh-tokens.ts'

const RevocationRequest = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 16_384 }),
    token_type_hint: Type.Optional(Type.String({ maxLength: 100 })),
    client_id: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
)

/**
 * POST /oauth/revoke (RFC 7009). Holding a token is enough to revoke it (public clients carry no
 * secret). An access token is revoked by putting its jti on the list every instance consults;
 * a refresh token ends its family. Unknown or malformed tokens answer 200 too (section 2.2).
 */
export default async function revokeRoute(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/oauth/revoke',
    {
      config: { operation: 'oauth.revoke', ...routeLimit(app.config, 'oauth.revoke') },
      schema: {
        summary: 'Revoke an access or refresh token (RFC 7009)',
        tags: ['identity'],
        consumes: ['application/x-www-form-urlencoded'],
        body: RevocationRequest,
        response: {
          200: Type.String({ maxLength: 0, description: 'Revoked, or unknown: an empty body' }),
          400: OAuthErrorBody,
          429: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { token } = request.body
      if (token.startsWith('rt_')) {
        const row = await findRefreshToken(app.db, token)
        if (row) await revokeFamily(app.db, row.family_id)
        return reply.code(200).send('')
      }
      try {
        // Verified, not just decoded: only our own tokens may put a jti on the list.
        const { payload } = await app.signer.verify(token, { typ: 'at+jwt' })
        if (payload.jti && payload.exp) await denyJtis(app.db, [{ jti: payload.jti, expiresAt: new Date(payload.exp * 1000) }])
      } catch (error) {
        request.log.info({ reason: (error as Error).message, looksLikeJwt: safeDecodes(token) }, 'revocation of an unknown token')
      }
      return reply.code(200).send('')
    },
  )
}

function safeDecodes(token: string): boolean {
  try {
    decodeJwt(token)
    return true
  } catch {
    return false
  }
}
