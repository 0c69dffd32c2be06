import { newId, sha256Hex, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'

/** Agent registrations and the claim attempts that bind one to a person's account. */

export async function insertRegistration(db: Db, registration: { id: string; claimToken: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('agent_registrations')
    .values({ id: registration.id, claim_token_hash: sha256Hex(registration.claimToken), expires_at: registration.expiresAt })
    .execute()
}

export async function registrationById(db: Db, id: string) {
  return db.selectFrom('agent_registrations').select(['status', 'account_id', 'expires_at']).where('id', '=', id).executeTakeFirst()
}

/** The registration a claim token names, locked for the rest of the transaction. */
export async function lockRegistrationByClaimToken(trx: Db, claimToken: string) {
  return trx
    .selectFrom('agent_registrations')
    .select(['id', 'status', 'expires_at'])
    .where('claim_token_hash', '=', sha256Hex(claimToken))
    .forUpdate()
    .executeTakeFirst()
}

export async function markRegistrationClaimed(trx: Db, id: string, claim: { userId: string; accountId: string; at: Date }): Promise<void> {
  await trx
    .updateTable('agent_registrations')
    .set({ status: 'claimed', user_id: claim.userId, account_id: claim.accountId, claimed_at: claim.at })
    .where('id', '=', id)
    .execute()
}

/** An attempt still waiting for the person or for the agent to collect it. */
export async function hasOpenClaimAttempt(trx: Db, registrationId: string, now: Date): Promise<boolean> {
  const open = await trx
    .selectFrom('claim_attempts')
    .select('id')
    .where('registration_id', '=', registrationId)
    .where('status', 'in', ['pending', 'approved'])
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return open !== undefined
}

export interface NewClaimAttempt {
  registrationId: string
  userCodeHash: string
  emailHash: string
  email: string
  intervalSeconds: number
  expiresAt: Date
}

export async function insertClaimAttempt(trx: Db, keyring: Keyring, attempt: NewClaimAttempt): Promise<string> {
  const id = newId('cla')
  await trx
    .insertInto('claim_attempts')
    .values({
      id,
      registration_id: attempt.registrationId,
      user_code_hash: attempt.userCodeHash,
      email_hash: attempt.emailHash,
      email_sealed: keyring.seal(attempt.email, `claim_attempts.email:${id}`),
      interval_seconds: attempt.intervalSeconds,
      expires_at: attempt.expiresAt,
    })
    .execute()
  return id
}

/** The newest attempt of a registration, locked: the polling agent and the person race for it. */
export async function lockLatestClaimAttempt(trx: Db, registrationId: string) {
  return trx
    .selectFrom('claim_attempts')
    .selectAll()
    .where('registration_id', '=', registrationId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst()
}

export async function recordClaimPoll(trx: Db, attemptId: string, at: Date, intervalSeconds?: number): Promise<void> {
  await trx
    .updateTable('claim_attempts')
    .set({ last_polled_at: at, ...(intervalSeconds !== undefined ? { interval_seconds: intervalSeconds } : {}) })
    .where('id', '=', attemptId)
    .execute()
}

export async function markClaimAttemptRedeemed(trx: Db, attemptId: string): Promise<void> {
  await trx.updateTable('claim_attempts').set({ status: 'redeemed' }).where('id', '=', attemptId).execute()
}

export async function claimAttemptByUserCode(db: Db, userCodeHash: string) {
  return db
    .selectFrom('claim_attempts')
    .select(['id', 'status', 'expires_at', 'email_hash', 'failed_entries'])
    .where('user_code_hash', '=', userCodeHash)
    .executeTakeFirst()
}

/** A code confirmed by the wrong account counts against the attempt; enough of them decline it. */
export async function countWrongAccountEntry(db: Db, attemptId: string, failedEntries: number, decline: boolean): Promise<void> {
  await db
    .updateTable('claim_attempts')
    .set({ failed_entries: failedEntries, ...(decline ? { status: 'denied' as const, decided_at: new Date() } : {}) })
    .where('id', '=', attemptId)
    .where('status', '=', 'pending')
    .execute()
}

/** A person's answer to a claim: approved for one of their accounts, or declined. */
export type ClaimDecision = { approve: true; userId: string; accountId: string } | { approve: false }

/** Records the person's decision once; false when the attempt was decided already. */
export async function decideClaimAttempt(db: Db, attemptId: string, decision: ClaimDecision): Promise<boolean> {
  const decided = await db
    .updateTable('claim_attempts')
    .set(
      decision.approve
        ? { status: 'approved', user_id: decision.userId, account_id: decision.accountId, decided_at: new Date() }
        : { status: 'denied', user_id: null, decided_at: new Date() },
    )
    .where('id', '=', attemptId)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst()
  return decided !== undefined
}
