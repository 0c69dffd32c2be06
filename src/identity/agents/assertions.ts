import { decodeJwt } from 'jose'
import type { Signer } from '../../infra/signer.ts'
import { IDENTITY_ASSERTION_TTL, IDENTITY_ASSERTION_TYP } from '../constants.ts'

/** The token endpoint is the audience of identity assertions (RFC 7523 section 3, item 3). */
export const assertionAudience = (issuer: string) => `${issuer}/oauth/token`

export interface IdentityAssertion {
  assertion: string
  expiresAt: Date
}

/**
 * The identity assertion of an agent registration: an RS256 JWT whose subject is the registration.
 * Version 1 is anonymous; version 2 is issued once a person has claimed it and carries their email.
 */
export async function signIdentityAssertion(
  signer: Signer,
  registrationId: string,
  claimed?: { email: string; accountId: string },
): Promise<IdentityAssertion> {
  const claims = claimed
    ? { ver: 2, registration_type: 'anonymous', claimed: true, email: claimed.email, email_verified: true, account_id: claimed.accountId }
    : { ver: 1, registration_type: 'anonymous', claimed: false }
  const assertion = await signer.sign(claims, {
    typ: IDENTITY_ASSERTION_TYP,
    subject: registrationId,
    audience: assertionAudience(signer.issuer),
    expiresInSeconds: IDENTITY_ASSERTION_TTL,
  })
  return { assertion, expiresAt: expiryOf(assertion) }
}

/**
 * The expiry a signed JWT itself states. Derived from the token rather than from a second reading
 * of the clock, which could fall in the next second and disagree with `exp` by up to one second.
 */
export function expiryOf(jwt: string): Date {
  return new Date((decodeJwt(jwt).exp as number) * 1000)
}
