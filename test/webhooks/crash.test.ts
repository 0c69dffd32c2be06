import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { TEST_DATA_KEY } from '../helpers/app.ts'
import { onPostgres } from '../helpers/database.ts'
import { baseEnv } from '../helpers/process.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { createAccount, startEngine } from './engine.ts'
import { until } from '../helpers/polling.ts'

describe.runIf(onPostgres)('webhook delivery across a crash', () => {
  it('delivers an event whose worker was SIGKILLed mid-attempt, after the lease, losing nothing', async () => {
    const { deps, runner, storeUrl } = await startEngine()
    // Only the child works until it is killed.
    await runner.stop()
    const { db, keyring } = deps
    const receiver = await startReceiver()
    receiver.script('hang')
    const accountId = await createAccount(db)
    const { secret } = await createEndpoint(db, keyring, accountId, { url: receiver.url })
    const eventId = await db
      .transaction()
      .execute((trx) => recordEvent(trx, { accountId, siteId: 'site_k', type: 'site.published', data: { site_id: 'site_k' } }))

    const child = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/delivering-worker.ts', import.meta.url))], {
      env: { ...baseEnv(), DATABASE_URL: storeUrl, DATA_ENCRYPTION_KEY: TEST_DATA_KEY },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    await receiver.waitFor(1, 20_000)
    child.kill('SIGKILL')
    await once(child, 'exit')
    const pending = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow()
    expect(pending).toMatchObject({ state: 'pending', attempts: 0 })

    await runner.start()
    const [, second] = await receiver.waitFor(2, 20_000)
    const delivered = await until(async () => {
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow()
      return row.state === 'succeeded' ? row : undefined
    })
    expect(delivered).toMatchObject({ attempts: 1, last_status: 200 })
    expect(second!.headers['webhook-id']).toBe(eventId)
    expect(new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>)).toMatchObject({ type: 'site.published' })
    expect(await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute()).toHaveLength(1)
  })
})
