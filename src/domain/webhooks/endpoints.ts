import type { Selectable } from 'kysely'
import { newId, type Keyring } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { generateSecret } from './signature.ts'
import type { WebhookEndpointsTable } from '../../infra/tables.ts'
import type { EventType } from './events.ts'
import type { Plan } from '../accounts/plans.ts'
import { cheapestPlan, planEntitlements } from '../accounts/entitlements.ts'
import type { Paging } from '../paging.ts'

/** How long the secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000

/** Webhooks come with the plans the price list gives them to (pro and above, INTERFACE.md 6.2 rule 5). */
export function webhooksAllowed(plan: Plan): boolean {
  return planEntitlements(plan).webhooks
}

/**
 * `last_error` of a delivery held back because the account's plan has no webhooks (a downgrade):
 * it is kept as a dead letter, so it can be replayed after an upgrade.
 */
export const PLAN_REQUIRED_ERROR = `plan_required: webhooks need plan ${cheapestPlan((e) => e.webhooks)} or above`

/** What a delivery held back records: the words the API shows and the failure the dashboard words. */
export const HELD_FOR_PLAN = { last_error: PLAN_REQUIRED_ERROR, last_failure: 'plan' } as const
export const HELD_DISABLED = { last_error: 'endpoint disabled', last_failure: 'disabled' } as const

export type EndpointRow = Selectable<WebhookEndpointsTable>

export type DisabledReason = 'gone' | 'failing'

export interface Endpoint {
  id: string
  url: string
  description: string
  event_types: EventType[]
  enabled: boolean
  /** Why the service turned the endpoint off: `gone` (it answered 410) or `failing` (5 days of failures). */
  disabled_reason: DisabledReason | null
  created_at: string
}

export function endpointView(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types as EventType[],
    enabled: row.enabled,
    disabled_reason: row.disabled_reason as DisabledReason | null,
    created_at: row.created_at.toISOString(),
  }
}

const secretContext = (endpointId: string, column: string) => `webhook_endpoints.${column}:${endpointId}`

export interface NewEndpoint {
  url: string
  description?: string | undefined
  eventTypes?: EventType[] | undefined
  enabled?: boolean | undefined
}

/** Creates an endpoint; the secret is answered here once and kept only sealed (it must sign later). */
export async function createEndpoint(
  db: Db,
  keyring: Keyring,
  accountId: string,
  input: NewEndpoint,
): Promise<{ row: EndpointRow; secret: string }> {
  const id = newId('whep')
  const secret = generateSecret()
  const row = await db
    .insertInto('webhook_endpoints')
    .values({
      id,
      account_id: accountId,
      url: input.url,
      description: input.description ?? '',
      event_types: JSON.stringify(dedupe(input.eventTypes ?? [])),
      enabled: input.enabled ?? true,
      disabled_reason: null,
      secret_sealed: keyring.seal(secret, secretContext(id, 'secret')),
      previous_secret_sealed: null,
      previous_expires_at: null,
      failing_since: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { row, secret }
}

function dedupe<T>(values: T[]): T[] {
  return [...new Set(values)]
}

export async function findEndpoint(db: Db, accountId: string, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
}

export async function listEndpoints(db: Db, accountId: string, { limit, offset }: Paging): Promise<{ rows: EndpointRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

export interface EndpointPatch {
  url?: string | undefined
  description?: string | undefined
  eventTypes?: EventType[] | undefined
  enabled?: boolean | undefined
}

/** Changes an endpoint; turning it on again clears why it was off and its run of failures. */
export async function updateEndpoint(db: Db, accountId: string, id: string, patch: EndpointPatch): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      ...(patch.url === undefined ? {} : { url: patch.url }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.eventTypes === undefined ? {} : { event_types: JSON.stringify(dedupe(patch.eventTypes)) }),
      ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
      ...(patch.enabled === true ? { disabled_reason: null, failing_since: null } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export type RotationResult = { secret: string; previousExpiresAt: Date } | { overlapUntil: Date } | undefined

/**
 * Replaces the signing secret; the old one keeps signing for ROTATION_OVERLAP_MS. A second
 * rotation during that overlap is refused (answers `overlapUntil`): a third secret would drop one
 * that receivers may still rely on. Run it in a transaction: the row is locked so two rotations at
 * once cannot both pass.
 */
export async function rotateSecret(trx: Db, keyring: Keyring, accountId: string, id: string, now = new Date()): Promise<RotationResult> {
  const row = await trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst()
  if (!row) return undefined
  if (row.previous_expires_at && row.previous_expires_at > now) return { overlapUntil: row.previous_expires_at }
  const secret = generateSecret()
  const previousExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS)
  const previous = keyring.open(row.secret_sealed, secretContext(id, 'secret'))
  await trx
    .updateTable('webhook_endpoints')
    .set({
      secret_sealed: keyring.seal(secret, secretContext(id, 'secret')),
      previous_secret_sealed: keyring.seal(previous, secretContext(id, 'previous_secret')),
      previous_expires_at: previousExpiresAt,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute()
  return { secret, previousExpiresAt }
}

/** The columns of an endpoint that sign a delivery. */
export type SigningColumns = Pick<EndpointRow, 'id' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_expires_at'>

/**
 * Secrets opened lately, by keyring and by sealed text with its context: opening is a pure
 * function of those, so a burst of deliveries to one endpoint decrypts its secret once. The
 * sealed text still comes from the row read for each delivery, so a rotated secret is used at
 * once. Bounded: cleared whole when full.
 */
const openedSecrets = new WeakMap<Keyring, Map<string, string>>()
const MAX_OPENED_SECRETS = 1000

function openSecret(keyring: Keyring, sealed: string, context: string): string {
  let opened = openedSecrets.get(keyring)
  if (!opened) openedSecrets.set(keyring, (opened = new Map()))
  const key = `${context} ${sealed}`
  let secret = opened.get(key)
  if (secret === undefined) {
    secret = keyring.open(sealed, context)
    if (opened.size >= MAX_OPENED_SECRETS) opened.clear()
    opened.set(key, secret)
  }
  return secret
}

/** The secrets that sign a delivery made at `now`: the current one, and the previous during its overlap. */
export function signingSecrets(keyring: Keyring, row: SigningColumns, now: Date): string[] {
  const secrets = [openSecret(keyring, row.secret_sealed, secretContext(row.id, 'secret'))]
  if (row.previous_secret_sealed && row.previous_expires_at && row.previous_expires_at > now) {
    secrets.push(openSecret(keyring, row.previous_secret_sealed, secretContext(row.id, 'previous_secret')))
  }
  return secrets
}
