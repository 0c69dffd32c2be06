import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { sha256Hex } from '../../infra/crypto.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { CLAIM_ATTEMPT_TTL, CLAIM_POLL_INTERVAL } from '../constants.ts'
import { OAuthError, OAuthErrorBody } from '../oauth/oauth-errors.ts'
import { newUserCode, normaliseUserCode } from './user-codes.ts'
import type { EmailHasher } from '../stores/users.ts'
import { hasOpenClaimAttempt, insertClaimAttempt, lockRegistrationByClaimToken } from '../stores/registrations.ts'

const ClaimToken = Type.String({ pattern: '^clm_[A-Za-z0-9_-]{43}$' })
const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 })

// The reference body, and the newer profile's login_hint form.
const ClaimRequest = Type.Union([
  Type.Object({ claim_token: ClaimToken, email: Email }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('login_hint'), claim_token: ClaimToken, login_hint: Email }, { additionalProperties: false }),
])

const ClaimResponse = Type.Object(
  {
    claim_attempt: Type.Object(
      {
        user_code: Type.String({ pattern: '^[A-Z]{4}-[A-Z]{4}$' }),
        verification_uri: Type.String(),
        expires_in: Type.Integer({ minimum: 1 }),
        interval: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

const claimErrors = {
  invalidToken: () => new OAuthError('invalid_claim_token', 'The claim token is unknown'),
  expired: () => new OAuthError('claim_expired', 'The registration was not claimed within 24 hours and has lapsed'),
  busy: (why: string) => new OAuthError('claimed_or_in_flight', why),
}

/**
 * POST /agent/identity/claim: starts the claim ceremony (like RFC 8628). The person named by the
 * email opens verification_uri, enters user_code and signs in with that email; meanwhile the
 * agent polls the token endpoint with the claim grant. One attempt may be open at a time.
 */
export default async function agentClaimRoute(app: FastifyInstance, options: { emailHash: EmailHasher }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/agent/identity/claim',
    {
      config: { operation: 'agent.identity.claim', ...routeLimit(app.config, 'agent.identity.claim') },
      schema: {
        summary: 'Ask a person to claim an agent registration',
        tags: ['identity'],
        body: ClaimRequest,
        response: {
          200: ClaimResponse,
          400: OAuthErrorBody,
          401: OAuthErrorBody,
          409: OAuthErrorBody,
          410: OAuthErrorBody,
          429: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      const body = request.body
      const email = 'email' in body ? body.email : body.login_hint
      const userCode = newUserCode()
      const now = new Date()

      await app.db.transaction().execute(async (trx) => {
        const registration = await lockRegistrationByClaimToken(trx, body.claim_token)
        if (!registration) throw claimErrors.invalidToken()
        if (registration.status === 'claimed') throw claimErrors.busy('The registration has already been claimed')
        if (registration.expires_at <= now) throw claimErrors.expired()
        if (await hasOpenClaimAttempt(trx, registration.id, now))
          throw claimErrors.busy('A claim of this registration is already in progress')
        await insertClaimAttempt(trx, app.keyring, {
          registrationId: registration.id,
          userCodeHash: sha256Hex(normaliseUserCode(userCode) as string),
          emailHash: options.emailHash(email),
          email,
          intervalSeconds: CLAIM_POLL_INTERVAL,
          expiresAt: new Date(now.getTime() + CLAIM_ATTEMPT_TTL * 1000),
        })
      })

      return reply.send({
        claim_attempt: {
          user_code: userCode,
          verification_uri: `${app.config.BASE_URL}/agent/identity/verify`,
          expires_in: CLAIM_ATTEMPT_TTL,
          interval: CLAIM_POLL_INTERVAL,
        },
      })
    },
  )
}
