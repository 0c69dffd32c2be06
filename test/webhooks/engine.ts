import { afterAll } from 'vitest'
import { createKeyring, newId } from '../../src/infra/crypto.ts'
import { createSafeFetcher } from '../../src/infra/fetcher.ts'
import { JobRunner } from '../../src/infra/jobs.ts'
import { createMailer } from '../../src/infra/mailer.ts'
import type { RetryClock } from '../../src/domain/webhooks/retry.ts'
import type { WebhookDeps } from '../../src/domain/webhooks/attempt.ts'
import { defineWebhookJobs } from '../../src/domain/webhooks/engine.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import type { Db } from '../../src/infra/db.ts'
import { testConfig, TEST_DATA_KEY } from '../helpers/app.ts'
import { openTestStore, silentLog } from '../helpers/store.ts'

/** A retry clock where a day of retries takes a few seconds: retries 50 ms, 100 ms, 200 ms and 2.5 s after the first try. */
export function fastClock(overrides: Partial<RetryClock> = {}): RetryClock {
  return {
    now: () => Date.now(),
    scheduleMs: [50, 100, 200, 2500],
    jitter: 0.1,
    timeoutMs: 1000,
    disableAfterMs: 5 * 86_400_000,
    leaseMs: 2000,
    ...overrides,
  }
}

export interface Engine {
  deps: WebhookDeps
  runner: JobRunner
  storeUrl: string
}

/** The delivery engine on a fresh database with its own job runner, as every instance runs it. */
export async function startEngine(clock: RetryClock = fastClock()): Promise<Engine> {
  const store = await openTestStore()
  const keyring = createKeyring(Buffer.from(TEST_DATA_KEY, 'base64'))
  const fetcher = createSafeFetcher({ allowPrivateNetworks: true })
  const mailer = createMailer({ config: testConfig(), db: store.db, keyring, log: silentLog })
  const deps: WebhookDeps = { db: store.db, keyring, fetcher, mailer, log: silentLog, clock }
  const runner = new JobRunner({ store, log: silentLog, concurrency: 8, pollIntervalMs: 20 })
  defineWebhookJobs(runner, deps)
  await runner.start()
  afterAll(async () => {
    await runner.stop()
    await fetcher.close()
  })
  return { deps, runner, storeUrl: store.url }
}

export async function createAccount(db: Db, plan: Plan = 'pro'): Promise<string> {
  const id = newId('acct')
  await db.insertInto('accounts').values({ id, plan }).execute()
  return id
}
