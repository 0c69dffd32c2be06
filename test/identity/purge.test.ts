import { describe, expect, it } from 'vitest'
import { PURGE_JOB, purgeExpired } from '../../src/identity/stores/purge.ts'
import { buildTestApp } from '../helpers/app.ts'

const { app } = await buildTestApp()
const db = app.db
const past = (hours: number) => new Date(Date.now() - hours * 3600_000)
const future = new Date(Date.now() + 3600_000)

describe('purge of expired identity rows', () => {
  it('schedules itself once per slot when the service starts', async () => {
    const jobs = await db.selectFrom('jobs').select(['name', 'state', 'run_at', 'unique_key']).where('name', '=', PURGE_JOB).execute()
    expect(jobs).toHaveLength(1)
    expect(jobs[0]).toMatchObject({ state: 'queued', unique_key: expect.stringMatching(/^slot:/) })
    expect(jobs[0]!.run_at.getTime()).toBeGreaterThan(Date.now())
  })

  it('deletes expired rows and keeps live ones', async () => {
    await db
      .insertInto('revoked_tokens')
      .values([
        { jti: 'old', expires_at: past(1) },
        { jti: 'live', expires_at: future },
      ])
      .execute()
    await db
      .insertInto('agent_registrations')
      .values([
        { id: 'reg_lapsed', claim_token_hash: 'a'.repeat(64), expires_at: past(48) },
        { id: 'reg_live', claim_token_hash: 'b'.repeat(64), expires_at: future },
      ])
      .execute()
    await db
      .insertInto('outbox')
      .values({ id: 'mail_old', to_sealed: 'x', subject: 's', body_sealed: 'x', created_at: past(24 * 8) })
      .execute()
    const counts = await purgeExpired(db)
    expect(counts).toMatchObject({ revoked_tokens: 1, agent_registrations: 1, outbox: 1 })
    expect((await db.selectFrom('revoked_tokens').select('jti').execute()).map((r) => r.jti)).toEqual(['live'])
    expect((await db.selectFrom('agent_registrations').select('id').execute()).map((r) => r.id)).toEqual(['reg_live'])
  })
})
