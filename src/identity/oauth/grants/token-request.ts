import { Type, type Static } from 'typebox'
import { parseScope } from '../../constants.ts'
import { OAuthError } from '../oauth-errors.ts'

const Param = Type.String({ maxLength: 4096 })

/**
 * The token request (application/x-www-form-urlencoded). Unknown parameters are ignored as RFC
 * 6749 section 3.2 asks; a repeated parameter arrives as an array and fails the schema.
 */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ minLength: 1, maxLength: 200 }),
    client_id: Type.Optional(Type.String({ maxLength: 2048 })),
    client_secret: Type.Optional(Param),
    code: Type.Optional(Param),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    code_verifier: Type.Optional(Param),
    refresh_token: Type.Optional(Param),
    // Bounded by the form body limit and checked by length in the grant: Ajv's maxLength counts
    // code points one by one, a cost on every token request.
    assertion: Type.Optional(Type.String()),
    claim_token: Type.Optional(Param),
    scope: Type.Optional(Param),
    resource: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
)
export type TokenRequest = Static<typeof TokenRequest>

/** The longest assertion accepted (ours are under 1 KB). */
export const MAX_ASSERTION_LENGTH = 16_384

/** The requested scopes if all are allowed, all allowed ones if none is asked for (RFC 6749 3.3). */
export function grantedScopes(requested: string | undefined, allowed: readonly string[]): string[] {
  const asked = parseScope(requested)
  if (!asked) throw new OAuthError('invalid_scope', 'The scope parameter is malformed')
  if (!asked.length) return [...allowed]
  const refused = asked.filter((s) => !allowed.includes(s))
  if (refused.length) throw new OAuthError('invalid_scope', `Scope not available here: ${refused.join(' ')}`)
  return asked
}
