import type { Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { WebhookFailure } from '../../infra/tables.ts'
import { responseContext } from './attempt-record.ts'
import { queueDelivery } from './queue-delivery.ts'
import type { Paging } from '../paging.ts'

/** What the dashboard and the API show of a delivery that finally failed (DESIGN.md 8). */
export interface DeadLetter {
  id: string
  endpoint_id: string
  event_id: string
  type: string
  attempts: number
  last_status: number | null
  last_error: string | null
  last_failure: WebhookFailure | null
  failed_at: string
}

export interface AttemptView {
  id: string
  delivery_id: string
  event_id: string
  type: string
  attempt: number
  attempted_at: string
  status: number | null
  duration_ms: number
  /** The first kilobyte of the receiver's answer (kept sealed, opened to be shown). */
  response: string | null
  error: string | null
  failure: WebhookFailure | null
}

function deadLetters(db: Db, accountId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .where('d.account_id', '=', accountId)
    .where('d.state', '=', 'dead')
    .where('d.replayed_at', 'is', null)
}

/** Dead letters not yet replayed, the latest failure first. */
export async function listDeadLetters(db: Db, accountId: string, page: Paging): Promise<{ items: DeadLetter[]; total: number }> {
  const [rows, count] = await Promise.all([
    deadLetters(db, accountId)
      .select([
        'd.id',
        'd.endpoint_id',
        'd.event_id',
        'e.type',
        'd.attempts',
        'd.last_status',
        'd.last_error',
        'd.last_failure',
        'd.failed_at',
      ])
      .orderBy('d.failed_at', 'desc')
      .orderBy('d.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    deadLetters(db, accountId)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ])
  return {
    items: rows.map((r) => ({ ...r, failed_at: (r.failed_at ?? new Date(0)).toISOString() })),
    total: Number(count.n),
  }
}

export type ReplayResult = { deliveryId: string } | 'not_found' | 'endpoint_disabled'

/**
 * Sends a dead letter's event again as a new delivery (same webhook-id); the dead letter leaves
 * the list. Run it in a transaction: the dead letter is locked so it is replayed once.
 */
export async function replayDeadLetter(trx: Db, accountId: string, deliveryId: string): Promise<ReplayResult> {
  const dead = await deadLetters(trx, accountId)
    .select(['d.id', 'd.endpoint_id', 'd.event_id'])
    .where('d.id', '=', deliveryId)
    .forUpdate('d')
    .executeTakeFirst()
  if (!dead) return 'not_found'
  const endpoint = await trx.selectFrom('webhook_endpoints').select('enabled').where('id', '=', dead.endpoint_id).executeTakeFirstOrThrow()
  if (!endpoint.enabled) return 'endpoint_disabled'
  await trx.updateTable('webhook_deliveries').set({ replayed_at: new Date() }).where('id', '=', dead.id).execute()
  return { deliveryId: await queueDelivery(trx, accountId, dead.endpoint_id, dead.event_id) }
}

/**
 * Sends again every event of the window [since, until) that was meant for the endpoint, whatever
 * became of it; dead letters among them leave the list. Answers how many were queued. Run it in
 * a transaction, so the window is replayed whole or not at all.
 */
export async function replayWindow(trx: Db, accountId: string, endpointId: string, since: Date, until: Date): Promise<number> {
  const events = await trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select('e.id')
    .distinct()
    .where('d.account_id', '=', accountId)
    .where('d.endpoint_id', '=', endpointId)
    .where('e.created_at', '>=', since)
    .where('e.created_at', '<', until)
    .execute()
  if (events.length === 0) return 0
  const ids = events.map((e) => e.id)
  await trx
    .updateTable('webhook_deliveries')
    .set({ replayed_at: new Date() })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'dead')
    .where('replayed_at', 'is', null)
    .where('event_id', 'in', ids)
    .execute()
  for (const id of ids) await queueDelivery(trx, accountId, endpointId, id)
  return ids.length
}

/**
 * Every attempt made to an endpoint, the latest first. The receivers' answers are stored sealed
 * and opened with `keyring`; without one they are left out (null).
 */
export async function listAttempts(
  db: Db,
  endpointId: string,
  page: Paging,
  keyring?: Keyring,
): Promise<{ items: AttemptView[]; total: number }> {
  const base = db.selectFrom('webhook_attempts as a').where('a.endpoint_id', '=', endpointId)
  const [rows, count] = await Promise.all([
    base
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'a.id',
        'a.delivery_id',
        'd.event_id',
        'e.type',
        'a.attempt',
        'a.attempted_at',
        'a.status',
        'a.duration_ms',
        'a.response',
        'a.error',
        'a.failure',
      ])
      .orderBy('a.attempted_at', 'desc')
      .orderBy('a.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return {
    items: rows.map((r) => ({
      ...r,
      attempted_at: r.attempted_at.toISOString(),
      response: r.response !== null && keyring ? keyring.open(r.response, responseContext(r.id)) : null,
    })),
    total: Number(count.n),
  }
}
