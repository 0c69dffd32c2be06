import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { until } from '../helpers/polling.ts'
import { describe, expect, it } from 'vitest'
import { batched, enqueueJob, enqueueJobs, JobRunner } from '../../src/infra/jobs.ts'
import { onPostgres } from '../helpers/database.ts'
import { baseEnv } from '../helpers/process.ts'
import { openTestStore, silentLog } from '../helpers/store.ts'

const store = await openTestStore()

const jobState = async (id: string) => store.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('job runner', () => {
  it('runs an enqueued job once, woken by NOTIFY, and records success', async () => {
    const runner = new JobRunner({ store, log: silentLog, pollIntervalMs: 60_000 })
    const seen: unknown[] = []
    runner.define<{ n: number }>('test.echo', { handler: async (payload) => void seen.push(payload) })
    await runner.start()
    const id = (await runner.enqueue('test.echo', { n: 1 }))!
    await until(async () => (await jobState(id)).state === 'succeeded')
    expect(seen).toEqual([{ n: 1 }])
    const job = await jobState(id)
    expect(job.attempts).toBe(1)
    expect(job.finished_at).toBeInstanceOf(Date)
    await runner.stop()
  })

  it('commits a job only with the transaction that enqueued it', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, 'test.rolled-back', {})
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(await store.db.selectFrom('jobs').select('id').where('name', '=', 'test.rolled-back').execute()).toHaveLength(0)
  })

  it('retries with backoff and keeps a job that keeps failing as failed, with its last error', async () => {
    const runner = new JobRunner({ store, log: silentLog, pollIntervalMs: 50 })
    let calls = 0
    const delays: number[] = []
    runner.define('test.flaky', {
      maxAttempts: 3,
      backoffMs: (attempt) => {
        delays.push(attempt)
        return 10
      },
      handler: async () => {
        calls++
        throw new Error(`boom ${calls}`)
      },
    })
    await runner.start()
    const id = (await runner.enqueue('test.flaky', {}))!
    await until(async () => (await jobState(id)).state === 'failed')
    const job = await jobState(id)
    expect(calls).toBe(3)
    expect(delays).toEqual([1, 2])
    expect(job).toMatchObject({ attempts: 3, last_error: 'boom 3' })
    await runner.stop()
  })

  it('succeeds on a later attempt after a failure', async () => {
    const runner = new JobRunner({ store, log: silentLog, pollIntervalMs: 50 })
    let calls = 0
    runner.define('test.second-time', {
      backoffMs: () => 10,
      handler: async () => {
        if (++calls === 1) throw new Error('first')
      },
    })
    await runner.start()
    const id = (await runner.enqueue('test.second-time', {}))!
    await until(async () => (await jobState(id)).state === 'succeeded')
    expect(calls).toBe(2)
    await runner.stop()
  })

  it('deduplicates pending jobs by unique key', async () => {
    const first = await enqueueJob(store.db, 'test.unique', {}, { uniqueKey: 'example.com', delayMs: 60_000 })
    const second = await enqueueJob(store.db, 'test.unique', {}, { uniqueKey: 'example.com', delayMs: 60_000 })
    expect(first).toBeDefined()
    expect(second).toBeUndefined()
  })

  it('never runs a job in two workers at once', async () => {
    const second = onPostgres ? await openTestStore(store.url) : store
    const running = new Set<string>()
    const runs = new Map<string, number>()
    let overlap = false
    const define = (runner: JobRunner) =>
      runner.define<{ i: number }>('test.exclusive', {
        handler: async (_payload, { job }) => {
          if (running.has(job.id)) overlap = true
          running.add(job.id)
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1)
          await new Promise((r) => setTimeout(r, Math.random() * 5))
          running.delete(job.id)
        },
      })
    const workers = [
      new JobRunner({ store, log: silentLog, concurrency: 4, pollIntervalMs: 20 }),
      new JobRunner({ store: second, log: silentLog, concurrency: 4, pollIntervalMs: 20 }),
    ]
    workers.forEach(define)
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => enqueueJob(store.db, 'test.exclusive', { i })))
    await Promise.all(workers.map((w) => w.start()))
    await until(async () => {
      const { rows } = await sql<{
        n: number
      }>`select count(*)::int as n from jobs where name = 'test.exclusive' and state = 'succeeded'`.execute(store.db)
      return rows[0]!.n === 60
    })
    await Promise.all(workers.map((w) => w.stop()))
    expect(overlap).toBe(false)
    expect(runs.size).toBe(60)
    expect([...runs.values()].every((n) => n === 1)).toBe(true)
    expect(new Set(ids).size).toBe(60)
  })

  it('takes a job again after the lease of a worker that went silent expires', async () => {
    // The first worker claims the job and hangs: it never renews (its renew timer is far slower
    // than its lease) and never records an outcome.
    const stuck = new JobRunner({ store, log: silentLog, pollIntervalMs: 60_000 })
    let releaseStuck!: () => void
    stuck.define('test.lease', { leaseMs: 300, handler: () => new Promise<void>((resolve) => (releaseStuck = resolve)) })
    const id = (await enqueueJob(store.db, 'test.lease', {}))!
    await stuck.start()
    await until(async () => (await jobState(id)).state === 'running')
    // Stop renewing by making the lease owner unknown: as if the process had died.
    await store.db
      .updateTable('jobs')
      .set({ lease_owner: 'dead-process', lease_until: new Date(Date.now() + 300) })
      .where('id', '=', id)
      .execute()

    const rescuer = new JobRunner({ store, log: silentLog, pollIntervalMs: 50 })
    let rescued = 0
    rescuer.define('test.lease', { handler: async () => void rescued++ })
    await rescuer.start()
    await until(async () => (await jobState(id)).state === 'succeeded')
    expect(rescued).toBe(1)
    expect((await jobState(id)).attempts).toBe(2)
    // The silent worker's late outcome cannot overwrite the new owner's.
    releaseStuck()
    await stuck.stop()
    await rescuer.stop()
    expect((await jobState(id)).state).toBe('succeeded')
  })

  it('finishes the job in flight when stopped, and leaves queued jobs for the next start', async () => {
    const runner = new JobRunner({ store, log: silentLog, concurrency: 1, pollIntervalMs: 60_000 })
    let started = 0
    runner.define('test.slow', {
      handler: async () => {
        started++
        await new Promise((r) => setTimeout(r, 300))
      },
    })
    const ids = [(await enqueueJob(store.db, 'test.slow', {}))!, (await enqueueJob(store.db, 'test.slow', {}, { delayMs: 200 }))!]
    await runner.start()
    await until(() => started === 1)
    await runner.stop()
    expect((await jobState(ids[0]!)).state).toBe('succeeded')
    expect((await jobState(ids[1]!)).state).toBe('queued')

    const next = new JobRunner({ store, log: silentLog, pollIntervalMs: 50 })
    next.define('test.slow', { handler: async () => {} })
    await next.start()
    await until(async () => (await jobState(ids[1]!)).state === 'succeeded')
    await next.stop()
  })

  it('adds several jobs in one statement, skipping a pending duplicate, and wakes a runner', async () => {
    const runner = new JobRunner({ store, log: silentLog, pollIntervalMs: 60_000 })
    const seen: number[] = []
    runner.define<{ n: number }>('test.many', { handler: async (payload) => void seen.push(payload.n) })
    await runner.start()
    await enqueueJob(store.db, 'test.many', { n: 0 }, { uniqueKey: 'many-0', delayMs: 60_000 })
    const ids = await enqueueJobs(store.db, [
      { name: 'test.many', payload: { n: 0 }, options: { uniqueKey: 'many-0' } },
      { name: 'test.many', payload: { n: 1 } },
      { name: 'test.many', payload: { n: 2 }, options: { uniqueKey: 'many-2' } },
    ])
    expect(ids[0]).toBeUndefined()
    expect(ids.slice(1).every((id) => typeof id === 'string')).toBe(true)
    await until(() => seen.length === 2)
    expect(seen.sort()).toEqual([1, 2])
    await runner.stop()
  })

  it('starts another job in the slot of one that only records its result', async () => {
    const runner = new JobRunner({ store, log: silentLog, concurrency: 1, pollIntervalMs: 50 })
    let secondStarted!: () => void
    const second = new Promise<void>((resolve) => (secondStarted = resolve))
    runner.define<{ n: number }>('test.release', {
      handler: async ({ n }, { releaseSlot }) => {
        if (n === 2) return secondStarted()
        // With its slot kept, the only slot would wait for this job, and this job for the second.
        releaseSlot()
        await second
      },
    })
    const first = (await enqueueJob(store.db, 'test.release', { n: 1 }))!
    await runner.start()
    await until(async () => (await jobState(first)).state === 'running')
    const next = (await enqueueJob(store.db, 'test.release', { n: 2 }))!
    await until(async () => (await jobState(first)).state === 'succeeded' && (await jobState(next)).state === 'succeeded')
    await runner.stop()
  })

  it('claims ahead while jobs finish quickly and hands the unstarted ones back when stopped', async () => {
    const runner = new JobRunner({ store, log: silentLog, concurrency: 2, pollIntervalMs: 60_000 })
    let done = 0
    runner.define('test.quick', {
      handler: async () => {
        await new Promise((r) => setTimeout(r, 10))
        done++
      },
    })
    await enqueueJobs(
      store.db,
      Array.from({ length: 200 }, () => ({ name: 'test.quick', payload: {} })),
    )
    await runner.start()
    await until(() => done >= 10)
    await runner.stop()
    const { rows } = await sql<{ state: string; attempts: number; n: number }>`
      select state, attempts, count(*)::int as n from jobs where name = 'test.quick' group by state, attempts`.execute(store.db)
    // Nothing stays leased by a stopped runner, and a job claimed but never run has no attempt counted.
    expect(rows.filter((r) => r.state !== 'succeeded' && r.state !== 'queued')).toEqual([])
    expect(rows.filter((r) => r.state === 'queued').every((r) => r.attempts === 0)).toBe(true)
    expect(rows.find((r) => r.state === 'succeeded')?.n).toBe(done)
  })

  it('runs at most twice its concurrency when every job gives its slot back at once', async () => {
    const runner = new JobRunner({ store, log: silentLog, concurrency: 3, pollIntervalMs: 60_000 })
    let running = 0
    let most = 0
    const runs = new Map<string, number>()
    runner.define('test.releasing', {
      handler: async (_payload, { job, releaseSlot }) => {
        releaseSlot()
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1)
        most = Math.max(most, ++running)
        await new Promise((r) => setTimeout(r, 5))
        running--
      },
    })
    const ids = await enqueueJobs(
      store.db,
      Array.from({ length: 60 }, () => ({ name: 'test.releasing', payload: {} })),
    )
    await runner.start()
    await until(() => runs.size === 60)
    await runner.stop()
    expect(most).toBeLessThanOrEqual(6)
    expect([...runs.values()].every((n) => n === 1)).toBe(true)
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from jobs where id = any(${ids}) and state = 'succeeded'`.execute(
      store.db,
    )
    expect(rows[0]!.n).toBe(60)
  })

  it('batches concurrent work, and a failing item fails only its own caller', async () => {
    const calls: number[][] = []
    const double = batched(async (items: number[]) => {
      calls.push(items)
      if (items.includes(13)) throw new Error('unlucky')
      return items.map((n) => n * 2)
    })
    const results = await Promise.allSettled([1, 2, 13, 4].map((n) => double(n)))
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([2, 4, 'rejected', 8])
    expect(calls[0]).toEqual([1, 2, 13, 4])
  })

  it.runIf(onPostgres)('runs a job again after its worker process is killed mid-job', async () => {
    const id = (await enqueueJob(store.db, 'test.crash', {}))!
    const child = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/hanging-worker.ts', import.meta.url))], {
      env: { ...baseEnv(), DATABASE_URL: store.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    await until(async () => (await jobState(id)).state === 'running')
    child.kill('SIGKILL')
    await once(child, 'exit')

    const rescuer = new JobRunner({ store, log: silentLog, pollIntervalMs: 50 })
    let rescued = 0
    rescuer.define('test.crash', { handler: async () => void rescued++ })
    await rescuer.start()
    await until(async () => (await jobState(id)).state === 'succeeded')
    await rescuer.stop()
    expect(rescued).toBe(1)
    expect((await jobState(id)).attempts).toBe(2)
  })
})
