import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { newId } from '../../infra/crypto.ts'
import { routeLimit } from '../../infra/rate-limit/budgets.ts'
import { insertRegisteredClient, redirectUriProblem } from '../stores/clients.ts'
import { OAuthError, OAuthErrorBody } from './oauth-errors.ts'

const GrantType = Type.Union([Type.Literal('authorization_code'), Type.Literal('refresh_token')])

// RFC 7591 section 2: metadata the server does not understand is ignored, so extra members pass.
const RegistrationRequest = Type.Object(
  {
    client_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 10 }),
    token_endpoint_auth_method: Type.Optional(Type.String({ maxLength: 100 })),
    grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10 })),
    response_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
)

const RegistrationResponse = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_name: Type.String(),
    redirect_uris: Type.Array(Type.String()),
    grant_types: Type.Array(GrantType),
    response_types: Type.Array(Type.Literal('code')),
    token_endpoint_auth_method: Type.Literal('none'),
  },
  { additionalProperties: false },
)

const metadataError = (description: string) => new OAuthError('invalid_client_metadata', description)

/**
 * POST /oauth/register (RFC 7591): public clients only, authenticated by PKCE rather than a
 * secret (token_endpoint_auth_method none); redirect URIs must be https or loopback http.
 */
export default async function registerRoute(app: FastifyInstance) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>()
  typed.post(
    '/oauth/register',
    {
      config: { operation: 'oauth.register', ...routeLimit(app.config, 'oauth.register') },
      schema: {
        summary: 'Register an OAuth client (RFC 7591)',
        tags: ['identity'],
        body: RegistrationRequest,
        response: { 201: RegistrationResponse, 400: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const body = request.body
      const method = body.token_endpoint_auth_method ?? 'none'
      if (method !== 'none') throw metadataError('Only public clients are registered: token_endpoint_auth_method must be none')
      for (const uri of body.redirect_uris) {
        const problem = redirectUriProblem(uri)
        if (problem) throw new OAuthError('invalid_redirect_uri', problem)
      }
      const grantTypes = body.grant_types ?? ['authorization_code', 'refresh_token']
      const unknownGrant = grantTypes.find((g) => g !== 'authorization_code' && g !== 'refresh_token')
      if (unknownGrant) throw metadataError(`grant type ${unknownGrant} is not offered to registered clients`)
      if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types must include authorization_code')
      const responseTypes = body.response_types ?? ['code']
      if (responseTypes.some((r) => r !== 'code')) throw metadataError('only response type code is offered')

      const clientId = newId('cli')
      const clientName = body.client_name ?? 'Unnamed client'
      const createdAt = new Date()
      await insertRegisteredClient(app.db, { clientId, clientName, redirectUris: body.redirect_uris, grantTypes, createdAt })
      return reply.code(201).send({
        client_id: clientId,
        client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
        client_name: clientName,
        redirect_uris: body.redirect_uris,
        grant_types: grantTypes as Array<'authorization_code' | 'refresh_token'>,
        response_types: ['code' as const],
        token_endpoint_auth_method: 'none' as const,
      })
    },
  )
}
