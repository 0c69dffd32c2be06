import type { Db } from '../../infra/db.ts'
import { enqueueJob, type JobDefinition, type NamedJob } from '../../infra/jobs.ts'

export const PURGE_JOB = 'identity.purge'
const EVERY_MS = 6 * 3600_000
const DAY_MS = 24 * 3600_000

/** The next run at a fixed six-hour slot, keyed by it, so N instances enqueue one job per slot. */
function nextSlot(now = Date.now()): { runAt: Date; key: string } {
  const runAt = new Date(Math.floor(now / EVERY_MS) * EVERY_MS + EVERY_MS)
  return { runAt, key: `slot:${runAt.toISOString()}` }
}

/**
 * Deletes what can no longer matter: denylist entries of tokens that have expired anyway,
 * finished sign-in challenges and codes (kept a day for replay detection and support), expired
 * sessions and refresh tokens, lapsed anonymous registrations, and week-old outbox mail.
 */
export async function purgeExpired(db: Db, now = new Date()): Promise<Record<string, number>> {
  const dayAgo = new Date(now.getTime() - DAY_MS)
  const counts: Record<string, number> = {}
  const count = (result: { numDeletedRows: bigint }[]) => Number(result.reduce((n, r) => n + r.numDeletedRows, 0n))
  counts['revoked_tokens'] = count(await db.deleteFrom('revoked_tokens').where('expires_at', '<', now).execute())
  counts['web_sessions'] = count(await db.deleteFrom('web_sessions').where('expires_at', '<', now).execute())
  counts['refresh_tokens'] = count(await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).execute())
  counts['sign_in_challenges'] = count(await db.deleteFrom('sign_in_challenges').where('expires_at', '<', dayAgo).execute())
  counts['authorization_codes'] = count(await db.deleteFrom('authorization_codes').where('expires_at', '<', dayAgo).execute())
  counts['claim_attempts'] = count(
    await db
      .deleteFrom('claim_attempts')
      .where('expires_at', '<', dayAgo)
      .where('status', 'in', ['pending', 'denied', 'redeemed'])
      .execute(),
  )
  counts['agent_registrations'] = count(
    await db.deleteFrom('agent_registrations').where('status', '=', 'anonymous').where('expires_at', '<', dayAgo).execute(),
  )
  counts['outbox'] = count(
    await db
      .deleteFrom('outbox')
      .where('created_at', '<', new Date(now.getTime() - 7 * DAY_MS))
      .execute(),
  )
  return counts
}

/** The purge, every six hours; each run schedules the next slot. */
export function identityPurgeJob(db: Db): NamedJob {
  const scheduleNext = () => {
    const next = nextSlot()
    return enqueueJob(db, PURGE_JOB, {}, { runAt: next.runAt, uniqueKey: next.key })
  }
  const definition: JobDefinition = {
    maxAttempts: 3,
    handler: async (_payload, { log }) => {
      const counts = await purgeExpired(db)
      log.info({ counts }, 'identity rows purged')
      await scheduleNext()
    },
  }
  return { name: PURGE_JOB, definition, scheduleNext }
}
