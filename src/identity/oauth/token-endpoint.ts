import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { CLAIM_GRANTS, JWT_BEARER_GRANT } from '../constants.ts'
import { authorizationCodeGrant } from './grants/authorization-code.ts'
import { claimGrant } from './grants/claim.ts'
import { jwtBearerGrant } from './grants/jwt-bearer.ts'
import { TokenRequest } from './grants/token-request.ts'
import { refreshTokenGrant } from './grants/refresh-token.ts'
import { TokenResponse } from './grants/token-response.ts'
import { OAuthError, OAuthErrorBody } from './oauth-errors.ts'

const claimGrants: ReadonlySet<string> = new Set(CLAIM_GRANTS)

/** POST /oauth/token: every grant of this server; answers carry Cache-Control: no-store. */
export default async function tokenRoute(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/oauth/token',
    {
      // Counted after body parsing, so the client_id of the form can key the limit.
      config: { operation: 'oauth.token', ...routeLimit(app.config, 'oauth.token') },
      schema: {
        summary: 'Token endpoint (authorization_code, refresh_token, jwt-bearer, claim)',
        tags: ['identity'],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request) => {
      const body = request.body
      const grant = body.grant_type
      if (grant === JWT_BEARER_GRANT) return jwtBearerGrant(app, body)
      if (claimGrants.has(grant)) return claimGrant(app, body.claim_token)
      if (grant === 'authorization_code') return authorizationCodeGrant(app, body)
      if (grant === 'refresh_token') return refreshTokenGrant(app, body)
      throw new OAuthError('unsupported_grant_type', `Grant type ${grant} is not supported`)
    },
  )
}
