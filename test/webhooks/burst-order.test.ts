import { describe, expect, it } from 'vitest'
import { fanOutEvents } from '../../src/domain/webhooks/fan-out.ts'
import { recordEvent } from '../../src/domain/webhooks/events.ts'
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts'
import { createKeyring } from '../../src/infra/crypto.ts'
import { TEST_DATA_KEY } from '../helpers/app.ts'
import { openTestStore } from '../helpers/store.ts'
import { createAccount } from './engine.ts'

// No job runner: the jobs are read as they are queued.
const { db } = await openTestStore()
const keyring = createKeyring(Buffer.from(TEST_DATA_KEY, 'base64'))

describe('a burst of events', () => {
  it("queues each delivery due since its event happened, so the first events' deliveries are claimed before the later events' fan-outs", async () => {
    const accountId = await createAccount(db)
    await createEndpoint(db, keyring, accountId, { url: 'https://receiver.example/hook' })
    await createEndpoint(db, keyring, accountId, { url: 'https://other.example/hook' })
    const events: string[] = []
    for (let i = 0; i < 3; i++) {
      events.push(
        await db.transaction().execute((trx) => recordEvent(trx, { accountId, siteId: 'site_x', type: 'site.published', data: { n: i } })),
      )
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(await fanOutEvents(db, [events[0]!])).toEqual([2])

    const first = await db.selectFrom('events').select('created_at').where('id', '=', events[0]!).executeTakeFirstOrThrow()
    const deliveries = await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', events[0]!).execute()
    const deliveryJobs = await db
      .selectFrom('jobs')
      .select(['run_at', 'payload'])
      .where('name', '=', 'webhook.deliver')
      .where(
        'unique_key',
        'in',
        deliveries.map((d) => `${d.id}:1`),
      )
      .execute()
    expect(deliveryJobs).toHaveLength(2)
    for (const job of deliveryJobs) expect(job.run_at.getTime()).toBe(first.created_at.getTime())
    // Claims take jobs by due time: the deliveries come before the fan-outs of the events after them.
    const laterFanOuts = await db
      .selectFrom('jobs')
      .select('run_at')
      .where('name', '=', 'webhook.fanout')
      .where('state', '=', 'queued')
      .orderBy('run_at')
      .execute()
    expect(laterFanOuts.length).toBeGreaterThanOrEqual(2)
    expect(Math.max(...deliveryJobs.map((j) => j.run_at.getTime()))).toBeLessThan(laterFanOuts.at(-2)!.run_at.getTime())
  })
})
