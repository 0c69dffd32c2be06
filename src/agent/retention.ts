import { sql } from 'kysely'
import type { Db } from '../infra/db.ts'
import { scheduleDaily, type JobDefinition, type NamedJob } from '../infra/jobs.ts'

/**
 * Sessions nobody has used for this long are erased like a visitor's DELETE would: transcript,
 * turns and events go; leads stay with their site, unlinked from the session.
 */
export const SESSION_RETENTION_DAYS = 30
export const PURGE_JOB = 'agent.sessions.purge'
const BATCH = 500

/** Erases sessions last active before `cutoff`, in batches; answers how many went. */
export async function purgeStaleSessions(db: Db, cutoff: Date): Promise<number> {
  let total = 0
  for (;;) {
    const erased = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string }>`
        select id from agent_sessions where last_active_at < ${cutoff} order by last_active_at limit ${BATCH} for update skip locked`.execute(
        trx,
      )
      const ids = rows.map((r) => r.id)
      if (ids.length === 0) return 0
      await trx.updateTable('leads').set({ session_id: null }).where('session_id', 'in', ids).execute()
      await trx.deleteFrom('agent_sessions').where('id', 'in', ids).execute()
      return ids.length
    })
    total += erased
    if (erased < BATCH) return total
  }
}

/** The next run at 03:00 UTC after `from`; one pending run per day, whatever the number of instances. */
export function schedulePurge(db: Db, from = new Date()) {
  return scheduleDaily(db, PURGE_JOB, { hour: 3 }, from)
}

/** The daily purge of stale sessions. */
export function retentionJob(db: Db): NamedJob {
  const definition: JobDefinition = {
    handler: async (_payload, { log }) => {
      // Schedule tomorrow's run first, so a failing purge still leaves the next one in place.
      await schedulePurge(db)
      const cutoff = new Date(Date.now() - SESSION_RETENTION_DAYS * 86_400_000)
      const erased = await purgeStaleSessions(db, cutoff)
      log.info({ erased, cutoff }, 'stale assistant sessions erased')
    },
  }
  return { name: PURGE_JOB, definition, scheduleNext: () => schedulePurge(db) }
}
