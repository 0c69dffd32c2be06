import { errors } from '../../errors.ts'
import type { Db } from '../../infra/db.ts'
import { etagOf, ifMatchHolds } from '../../infra/etag.ts'
import { auditedChange } from '../audited-change.ts'
import type { GraphqlContext } from '../context.ts'
import { plausibleId } from '../inputs.ts'
import { notFound, orNotFound } from './query.ts'

/** A mutation's arguments: its one input object (src/graphql/inputs.ts checks its fields). */
export type Input<T = Record<string, unknown>> = { input: T & Record<string, unknown> }
/** The input of a mutation on an existing item: its id, and the ETag the client last read it at. */
export type Existing = { id: string; ifMatch?: string | null }

/** The mutation's `ifMatch` against the item's current ETag (stale: PRECONDITION_FAILED, nothing changes). */
export function ifMatch(given: unknown, current: string): void {
  if (!ifMatchHolds(typeof given === 'string' ? given : undefined, current))
    throw new errors.preconditionFailed('The resource has changed since the ETag given in ifMatch')
}

/**
 * Writes the account's item `input.id` in the mutation's change, held to `ifMatch` against the
 * ETag of its REST representation (`view`) when the write has locked it; NOT_FOUND for an id the
 * account cannot see.
 */
export async function changeExisting<Row, T>(
  context: GraphqlContext,
  what: string,
  input: Existing,
  view: (row: Row) => unknown,
  write: (trx: Db, accountId: string, id: string, check: (current: Row) => void) => Promise<T | undefined | false>,
): Promise<T> {
  const check = (current: Row) => ifMatch(input.ifMatch, etagOf(view(current)))
  if (!plausibleId(input.id)) throw notFound(what)
  return auditedChange(context, async (trx) => orNotFound(await write(trx, context.principal.accountId, input.id, check), what))
}
