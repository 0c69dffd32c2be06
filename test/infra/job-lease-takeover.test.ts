import { describe, expect, it } from 'vitest'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { createKeyring } from '../../src/infra/crypto.ts'
import { TEST_DATA_KEY } from '../helpers/app.ts'
import { freshDatabaseUrl, onPostgres } from '../helpers/database.ts'
import { startServerProcess, waitUntilReady } from '../helpers/process.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { openTestStore } from '../helpers/store.ts'
import { createAccount } from '../webhooks/engine.ts'
import { until } from '../helpers/polling.ts'

// Two instances of the service as processes on one PostgreSQL, with their own job leases and
// renewal: the work held by an instance that is SIGKILLed is taken over by the other within 30 s.
describe.runIf(onPostgres)('work held by a killed instance', () => {
  it('resumes on the other instance within 30 s, and is not taken from a live one', { timeout: 120_000 }, async () => {
    const databaseUrl = await freshDatabaseUrl()
    const env = { DATABASE_URL: databaseUrl, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }
    const [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)])
    await Promise.all([waitUntilReady(first!), waitUntilReady(second!)])

    const { db } = await openTestStore(databaseUrl)
    const keyring = createKeyring(Buffer.from(TEST_DATA_KEY, 'base64'))
    const receiver = await startReceiver()
    // The first attempt waits on a receiver that does not answer; the next one is answered.
    receiver.script('hang')
    const accountId = await createAccount(db)
    await createEndpoint(db, keyring, accountId, { url: receiver.url })

    // The second instance is frozen while the event is recorded, so the first one takes the work.
    second!.child.kill('SIGSTOP')
    const eventId = await db
      .transaction()
      .execute((trx) => recordEvent(trx, { accountId, siteId: 'site_lease', type: 'site.published', data: { site_id: 'site_lease' } }))
    await receiver.waitFor(1, 20_000)
    second!.child.kill('SIGCONT')

    // Both run: the first renews its lease, so the second leaves the delivery alone.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    expect(receiver.requests).toHaveLength(1)

    const killedAt = Date.now()
    first!.child.kill('SIGKILL')
    await first!.exited
    const [, retried] = await receiver.waitFor(2, 45_000)
    expect(retried!.at - killedAt).toBeLessThan(30_000)
    expect(retried!.headers['webhook-id']).toBe(eventId)
    const delivered = await until(async () => {
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow()
      return row.state === 'succeeded' ? row : undefined
    })
    expect(delivered).toMatchObject({ attempts: 1, last_status: 200 })
  })
})
