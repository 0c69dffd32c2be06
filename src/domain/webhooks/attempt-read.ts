/**
 * What an attempt reads before it sends: the delivery, its endpoint with the account's plan, and
 * its event. Attempts that start together are read by one query, so a burst costs one round trip.
 */
import { sql, type Selectable } from 'kysely'
import type { Db } from '../../infra/db.ts'
import { plannedEachTime } from '../../infra/jobs.ts'
import type { EventsTable } from '../../infra/tables.ts'
import type { Plan } from '../accounts/plans.ts'
import type { EndpointRow } from './endpoints.ts'

/** The columns of an endpoint an attempt uses, with its account's plan. */
export type AttemptEndpoint = Pick<
  EndpointRow,
  'id' | 'account_id' | 'url' | 'enabled' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_expires_at' | 'failing_since'
> & { plan: Plan }

/** What an attempt reads before it sends: the delivery, its endpoint and its event. */
export interface AttemptInput {
  delivery: { id: string; state: string; attempts: number; first_attempt_at: Date | null }
  endpoint: AttemptEndpoint
  event: Selectable<EventsTable>
}

/** The deliveries of attempts that start together, read with their endpoints and events in one query. */
const attemptsRead = plannedEachTime((db, ids: string[]) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('accounts as a', 'a.id', 'w.account_id')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.state',
      'd.attempts',
      'd.first_attempt_at',
      'w.id as endpoint_id',
      'w.account_id as endpoint_account_id',
      'w.url',
      'w.enabled',
      'w.secret_sealed',
      'w.previous_secret_sealed',
      'w.previous_expires_at',
      'w.failing_since',
      'a.plan',
      'e.id as event_id',
      'e.account_id as event_account_id',
      'e.site_id',
      'e.type',
      'e.data',
      'e.personal_sealed',
      'e.created_at',
    ])
    .where('d.id', '=', sql<string>`any(${ids}::text[])`),
)

export async function readAttempts(db: Db, deliveryIds: readonly string[]): Promise<Array<AttemptInput | undefined>> {
  const rows = await attemptsRead(db, [...new Set(deliveryIds)])
  const byId = new Map(
    rows.map((r): [string, AttemptInput] => [
      r.id,
      {
        delivery: { id: r.id, state: r.state, attempts: r.attempts, first_attempt_at: r.first_attempt_at },
        endpoint: {
          id: r.endpoint_id,
          account_id: r.endpoint_account_id,
          url: r.url,
          enabled: r.enabled,
          secret_sealed: r.secret_sealed,
          previous_secret_sealed: r.previous_secret_sealed,
          previous_expires_at: r.previous_expires_at,
          failing_since: r.failing_since,
          plan: r.plan,
        },
        event: {
          id: r.event_id,
          account_id: r.event_account_id,
          site_id: r.site_id,
          type: r.type,
          data: r.data,
          personal_sealed: r.personal_sealed,
          created_at: r.created_at,
        },
      },
    ]),
  )
  return deliveryIds.map((id) => byId.get(id))
}
