import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { classify } from '../../src/errors.ts'
import { buildTestApp } from '../helpers/app.ts'

// A real server cancels a statement that runs too long; the embedded database has no such bound.
const postgres = process.env.TEST_DB === 'postgres'
const { app } = await buildTestApp({ env: { DATABASE_POOL_SIZE: '3' } })

describe.runIf(postgres)('statements on the service’s connections', () => {
  it('are bounded by the server on every pooled connection, 15 s', async () => {
    // Three at once, so each runs on its own connection of the pool.
    const settings = await Promise.all(
      [0, 1, 2].map(() =>
        sql<{ statement_timeout: string }>`select current_setting('statement_timeout') as statement_timeout, pg_sleep(0.05)`.execute(
          app.db,
        ),
      ),
    )
    expect(settings.map(({ rows }) => rows[0]!.statement_timeout)).toEqual(['15s', '15s', '15s'])
  })

  it('run without parallel workers or JIT compilation on every pooled connection', async () => {
    const settings = await Promise.all(
      [0, 1, 2].map(() =>
        sql<{ workers: string; jit: string }>`select current_setting('max_parallel_workers_per_gather') as workers,
          current_setting('jit') as jit, pg_sleep(0.05)`.execute(app.db),
      ),
    )
    expect(settings.map(({ rows }) => [rows[0]!.workers, rows[0]!.jit])).toEqual([
      ['0', 'off'],
      ['0', 'off'],
      ['0', 'off'],
    ])
  })

  it('once cancelled are a 503 (the database could not answer in time), and the connection serves on', async () => {
    const failure = await app.db
      .transaction()
      .execute(async (trx) => {
        await sql`set local statement_timeout = 50`.execute(trx)
        await sql`select pg_sleep(1)`.execute(trx)
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(failure).toMatchObject({ code: '57014' })
    expect(classify(failure as never).status).toBe(503)
    expect((await sql<{ one: number }>`select 1 as one`.execute(app.db)).rows).toEqual([{ one: 1 }])
  })
})
