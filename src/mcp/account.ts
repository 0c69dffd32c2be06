import type { Static, TSchema } from 'typebox'
import { auditRecord, insertAuditRecords } from '../domain/audit-log.ts'
import { allows } from '../domain/quota.ts'
import { chargeAccount, quotaTallyOf } from '../domain/quota-tally.ts'
import { errors } from '../errors.ts'
import type { Db } from '../infra/db.ts'
import { defineTool, failureStatus, ToolError, type Caller, type ToolSpec } from './tool.ts'

/** A tool call on an account's data: the account it acts for, and where to read and write. */
export interface AccountCall extends Caller {
  accountId: string
  /** The database for a read; for a change, the transaction its audit record is written in. */
  db: Db
}

export interface AccountToolSpec<I extends TSchema, O extends TSchema> extends Omit<ToolSpec<I, O>, 'run'> {
  /** Reads need a plan with API access (plus and above); writes need pro or above, as on /v1. */
  access: 'read' | 'write'
  run: (args: Static<I>, call: AccountCall) => Promise<Static<O>>
}

/** What an agent nobody has claimed is told: how its person claims it (INTERFACE.md 5.3). */
export function claimSteps(baseUrl: string): string {
  return (
    'This tool acts for a person\'s account, and no person has claimed this agent yet. Ask your person to claim it: ' +
    `1. POST ${baseUrl}/agent/identity/claim with {"claim_token": <your claim_token>, "email": <their email>}; ` +
    '2. show them the verification_uri and user_code from the answer; ' +
    `3. poll POST ${baseUrl}/oauth/token with grant_type=urn:presence:agent-auth:grant-type:claim and claim_token, every interval seconds, while it answers authorization_pending; ` +
    '4. call this tool again with the new access token (scopes mcp:read mcp:tools).'
  )
}

/**
 * The frame of every call on an account's data, the same rules as /v1's: it counts against the
 * account's hourly quota, the plan must allow it, and it lands in the audit log under
 * `operation`. A change commits together with its audit record; reads and refusals are
 * recorded in batches.
 */
export async function forAccount<T>(caller: Caller, operation: string, access: 'read' | 'write', work: (call: AccountCall) => Promise<T>): Promise<T> {
  const accountId = caller.auth.accountId
  if (!accountId) throw new ToolError('claim_required', claimSteps(caller.app.config.BASE_URL), 403)
  const charge = await chargeAccount(caller.app.db, quotaTallyOf(caller.app.db, caller.app.log), accountId)
  if (!charge) throw new ToolError('invalid_token', 'The account of this token no longer exists', 401)

  const record = (status: number) =>
    auditRecord({ accountId, tokenId: null, clientId: caller.auth.clientId, operation, method: 'POST', path: '/mcp', status, requestId: caller.request.id, ip: caller.request.ip })
  try {
    if (!allows(charge.plan, 'read')) throw new errors.planRequired(`The ${charge.plan} plan has no API access; upgrade to plus or above`)
    if (charge.used > charge.limit) {
      const seconds = Math.max(1, Math.ceil((charge.resetAt.getTime() - Date.now()) / 1000))
      throw new ToolError('rate_limited', `The account's ${charge.limit} calls for this hour are used up; retry in ${seconds} seconds`, 429)
    }
    if (access === 'write' && !allows(charge.plan, 'write')) {
      throw new errors.planRequired(`The ${charge.plan} plan has read-only API access; changes need plan pro or above`)
    }
    if (access === 'read') {
      const output = await work({ ...caller, accountId, db: caller.app.db })
      caller.audit.add(record(200))
      return output
    }
    return await caller.app.db.transaction().execute(async (trx) => {
      const output = await work({ ...caller, accountId, db: trx })
      await insertAuditRecords(trx, [record(200)])
      return output
    })
  } catch (error) {
    caller.audit.add(record(failureStatus(error)))
    throw error
  }
}

export function accountTool<I extends TSchema, O extends TSchema>(spec: AccountToolSpec<I, O>): ToolSpec {
  return defineTool({ ...spec, run: (args, caller) => forAccount(caller, spec.name, spec.access, (call) => spec.run(args, call)) })
}
