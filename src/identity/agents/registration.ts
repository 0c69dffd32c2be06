import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { newId, randomToken } from '../../infra/crypto.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { signIdentityAssertion } from './assertions.ts'
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, REGISTRATION_TTL } from '../constants.ts'
import { OAuthError, OAuthErrorBody } from '../oauth/oauth-errors.ts'
import { insertRegistration } from '../stores/registrations.ts'

const RegistrationRequest = Type.Object({ type: Type.String({ maxLength: 64 }) }, { additionalProperties: false })

const RegistrationResponse = Type.Object(
  {
    registration_id: Type.String({ pattern: '^reg_' }),
    registration_type: Type.Literal('anonymous'),
    identity_assertion: Type.String(),
    assertion_expires: Type.String({ format: 'date-time' }),
    pre_claim_scopes: Type.Array(Type.String()),
    claim_url: Type.String(),
    claim_token: Type.String({ pattern: '^clm_' }),
    claim_token_expires: Type.String({ format: 'date-time' }),
    post_claim_scopes: Type.Array(Type.String()),
  },
  { additionalProperties: false },
)

/**
 * POST /agent/identity: anonymous self-registration of an agent. The claim token is shown once
 * and stored only as its SHA-256 hash; the registration lapses after 24 hours unless claimed.
 */
export default async function agentRegistrationRoute(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/agent/identity',
    {
      config: { operation: 'agent.identity.register', ...routeLimit(app.config, 'agent.identity.register') },
      schema: {
        summary: 'Register an agent anonymously',
        tags: ['identity'],
        body: RegistrationRequest,
        response: { 200: RegistrationResponse, 400: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      if (request.body.type !== 'anonymous') {
        throw new OAuthError('unsupported_identity_type', 'Only identity type "anonymous" is offered')
      }
      const id = newId('reg')
      const claimToken = `clm_${randomToken(32)}`
      const expiresAt = new Date(Date.now() + REGISTRATION_TTL * 1000)
      await insertRegistration(app.db, { id, claimToken, expiresAt })
      const { assertion, expiresAt: assertionExpires } = await signIdentityAssertion(app.signer, id)
      return reply.send({
        registration_id: id,
        registration_type: 'anonymous' as const,
        identity_assertion: assertion,
        assertion_expires: assertionExpires.toISOString(),
        pre_claim_scopes: PRE_CLAIM_SCOPES,
        claim_url: `${app.config.BASE_URL}/agent/identity/claim`,
        claim_token: claimToken,
        claim_token_expires: expiresAt.toISOString(),
        post_claim_scopes: POST_CLAIM_SCOPES,
      })
    },
  )
}
