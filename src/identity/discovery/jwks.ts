import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'

const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.Literal('RSA'),
      kid: Type.String(),
      alg: Type.Literal('RS256'),
      use: Type.Literal('sig'),
      n: Type.String(),
      e: Type.String(),
    }),
  ),
})

/** GET /.well-known/jwks.json: the public keys that verify every token this service signs. */
export default async function jwksRoute(app: FastifyInstance) {
  app.get(
    '/.well-known/jwks.json',
    { config: { operation: 'discovery.jwks' }, schema: { summary: 'JSON Web Key Set', tags: ['identity'], response: { 200: Jwks } } },
    async (_request, reply) => {
      return reply.type('application/jwk-set+json').header('cache-control', 'public, max-age=300').send(app.signer.jwks())
    },
  )
}
