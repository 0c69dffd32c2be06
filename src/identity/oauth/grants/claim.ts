import type { FastifyInstance } from 'fastify'
import { newId } from '../../../infra/crypto.ts'
import { denyJtis, revocationsChanged } from '../../../infra/revocations.ts'
import { signIdentityAssertion } from '../../agents/assertions.ts'
import { forgetRegistration } from './jwt-bearer.ts'
import { ACCESS_TOKEN_TTL, POST_CLAIM_SCOPES, resources } from '../../constants.ts'
import { invalidGrant, invalidRequest, OAuthError } from '../oauth-errors.ts'
import { preClaimGroup } from '../access-tokens.ts'
import { issueTokenPair, type TokenResponse } from './token-response.ts'
import {
  lockLatestClaimAttempt,
  lockRegistrationByClaimToken,
  markClaimAttemptRedeemed,
  markRegistrationClaimed,
  recordClaimPoll,
} from '../../stores/registrations.ts'
import { grantAccount, userById } from '../../stores/users.ts'

/** RFC 8628 section 3.5: polling faster than the interval adds 5 seconds to it. */
const SLOW_DOWN_STEP = 5

/**
 * The claim grant: the agent polls with its claim token while a person completes the
 * verification page.
 * - authorization_pending until the person approves; slow_down when polled within the interval;
 * - expired_token once the attempt's 10 minutes pass (also for an approval not collected in time);
 *   access_denied when the person declines;
 * - on approval, once: the registration becomes claimed, every pre-claim token is revoked, and the
 *   answer carries the post-claim token, a refresh token and a v2 identity assertion.
 */
export async function claimGrant(app: FastifyInstance, claimToken: string | undefined): Promise<TokenResponse> {
  if (!claimToken) throw invalidRequest('The claim_token parameter is required')
  const now = new Date()

  const outcome = await app.db.transaction().execute(async (trx) => {
    const registration = await lockRegistrationByClaimToken(trx, claimToken)
    if (!registration) throw invalidGrant('The claim token is unknown')
    const attempt = await lockLatestClaimAttempt(trx, registration.id)
    if (!attempt) throw invalidGrant('No claim has been started for this registration')
    if (attempt.status === 'redeemed' || registration.status === 'claimed') throw invalidGrant('The claim has already been completed')
    if (attempt.status === 'denied') throw new OAuthError('access_denied', 'The person declined the claim')
    if (attempt.status === 'pending') {
      if (attempt.expires_at <= now) throw new OAuthError('expired_token', 'The user code has expired; start a new claim')
      const tooSoon = attempt.last_polled_at !== null && now.getTime() - attempt.last_polled_at.getTime() < attempt.interval_seconds * 1000
      await recordClaimPoll(trx, attempt.id, now, tooSoon ? attempt.interval_seconds + SLOW_DOWN_STEP : undefined)
      return tooSoon ? ('slow_down' as const) : ('authorization_pending' as const)
    }

    // Approved: complete the claim exactly once, within the attempt's lifetime.
    if (attempt.expires_at <= now) throw new OAuthError('expired_token', 'The claim was not collected in time; start a new claim')
    const user = attempt.user_id ? await userById(trx, app.keyring, attempt.user_id) : undefined
    if (!user) throw invalidGrant('The person who approved the claim no longer exists')
    const accountId = await grantAccount(trx, attempt.account_id ?? user.accountId, user.id, user.id)
    if (!accountId) throw invalidGrant('The person who approved the claim no longer belongs to the account they chose')
    await markClaimAttemptRedeemed(trx, attempt.id)
    await markRegistrationClaimed(trx, registration.id, { userId: user.id, accountId, at: now })
    forgetRegistration(registration.id)
    // Every pre-claim token names this group; it outlives the last of them (one lifetime and a margin).
    await denyJtis(trx, [{ jti: preClaimGroup(registration.id), expiresAt: new Date(now.getTime() + (ACCESS_TOKEN_TTL + 60) * 1000) }])

    const audience = resources(app.config).mcp
    const identity = await signIdentityAssertion(app.signer, registration.id, { email: user.email, accountId })
    return issueTokenPair(
      trx,
      app.signer,
      {
        familyId: newId('fam'),
        clientId: registration.id,
        subject: registration.id,
        userId: user.id,
        accountId,
        scope: POST_CLAIM_SCOPES,
        resource: audience,
      },
      { identity_assertion: identity.assertion, assertion_expires: identity.expiresAt.toISOString() },
    )
  })

  // The group was denied inside the transaction; answers remembered while it was open are stale now.
  if (typeof outcome !== 'string') revocationsChanged()
  if (outcome === 'slow_down') throw new OAuthError('slow_down', 'Polling too fast; wait the interval between requests')
  if (outcome === 'authorization_pending') throw new OAuthError('authorization_pending', 'The person has not completed the claim yet')
  return outcome
}
