import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { PURGE_JOB, purgeStaleSessions, schedulePurge, SESSION_RETENTION_DAYS } from '../../src/agent/retention.ts'
import { listLeads } from '../../src/domain/leads/leads.ts'
import { buildTestApp } from '../helpers/app.ts'
import { bootstrap, chat, event } from './helpers.ts'

const { app } = await buildTestApp({ env: { BASE_URL: 'https://platform.test', JOB_CONCURRENCY: '0' } })

describe('retention of assistant sessions', () => {
  it(`erases sessions idle for more than ${SESSION_RETENTION_DAYS} days with their transcript; leads stay, unlinked`, async () => {
    const old = await bootstrap(app)
    const recent = await bootstrap(app)
    await chat(app, old, 'How much is Pro?')
    await chat(app, recent, 'How much is Pro?')
    expect(
      (
        await event(app, old, 'lead_submitted', {
          email: 'old@example.com',
          consent: true,
          consent_version: '2026-07-24.1',
          consent_digest: old.lead_consent!.digest,
        })
      ).statusCode,
    ).toBe(202)
    await app.db
      .updateTable('agent_sessions')
      .set({ last_active_at: sql<Date>`now() - interval '31 days'` })
      .where('id', '=', old.session_id)
      .execute()

    const erased = await purgeStaleSessions(app.db, new Date(Date.now() - SESSION_RETENTION_DAYS * 86_400_000))
    expect(erased).toBe(1)
    expect(await app.db.selectFrom('agent_sessions').select('id').where('id', 'in', [old.session_id, recent.session_id]).execute()).toEqual(
      [{ id: recent.session_id }],
    )
    expect(await app.db.selectFrom('agent_messages').select('id').where('session_id', '=', old.session_id).execute()).toHaveLength(0)
    expect(await app.db.selectFrom('agent_messages').select('id').where('session_id', '=', recent.session_id).execute()).toHaveLength(2)
    const lead = (await listLeads(app.db, app.keyring, 'site_platform')).find((l) => l.email === 'old@example.com')
    expect(lead?.sessionId).toBeNull()
  })

  it('keeps exactly one purge scheduled per day, at 03:00 UTC', async () => {
    const pending = await app.db.selectFrom('jobs').selectAll().where('name', '=', PURGE_JOB).where('state', '=', 'queued').execute()
    expect(pending).toHaveLength(1)
    expect(pending[0]!.run_at.getUTCHours()).toBe(3)
    expect(pending[0]!.run_at.getTime()).toBeGreaterThan(Date.now())
    expect(await schedulePurge(app.db)).toBeUndefined()
    const from = new Date(Date.UTC(2030, 0, 1, 4))
    await schedulePurge(app.db, from)
    const next = await app.db
      .selectFrom('jobs')
      .select('run_at')
      .where('name', '=', PURGE_JOB)
      .where('unique_key', '=', '2030-01-02')
      .executeTakeFirstOrThrow()
    expect(next.run_at.toISOString()).toBe('2030-01-02T03:00:00.000Z')
  })
})
