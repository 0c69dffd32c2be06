import type { Static, TSchema } from 'typebox'
import { errors } from '../errors.ts'
import { auditEntry } from '../frame/index.ts'
import type { Db } from '../infra/db.ts'
import { defineTool, failureStatus, type Caller, type ToolSpec } from './tool.ts'

/** A tool call on an account's data: the account it acts for, and where to read and write. */
export interface AccountCall extends Caller {
  accountId: string
  /** The member who acts (null for a token the operator made). */
  userId: string | null
  /** The database for a read; for a change, the transaction its audit record is written in. */
  db: Db
}

export interface AccountToolSpec<I extends TSchema, O extends TSchema> extends Omit<ToolSpec<I, O>, 'run'> {
  /** Reads need a plan with API access (plus and above); writes need pro or above, as on /v1. */
  access: 'read' | 'write'
  /**
   * `billing` (DESIGN.md 16): the owner's on every plan, as /v1/account/billing. The billing
   * service writes its changes in its own transactions around Stripe's calls, so the tool's call
   * is recorded like a read.
   */
  right?: 'billing'
  run: (args: Static<I>, call: AccountCall) => Promise<Static<O>>
}

/** What an agent nobody has claimed is told: how its person claims it (INTERFACE.md 5.3). */
export function claimSteps(baseUrl: string): string {
  return (
    "This tool acts for a person's account, and no person has claimed this agent yet. Ask your person to claim it: " +
    `1. POST ${baseUrl}/agent/identity/claim with {"claim_token": <your claim_token>, "email": <their email>}; ` +
    '2. show them the verification_uri and user_code from the answer; ' +
    `3. poll POST ${baseUrl}/oauth/token with grant_type=urn:presence:agent-auth:grant-type:claim and claim_token, every interval seconds, while it answers authorization_pending; ` +
    '4. call this tool again with the new access token (scopes mcp:read mcp:tools).'
  )
}

/**
 * Every call on an account's data goes through the account frame, with the same rules as /v1: it
 * counts against the account's hourly quota, the plan must allow it, and it lands in the audit log
 * under `operation`. A change commits together with its audit record; reads and refusals are
 * recorded in batches.
 */
export async function forAccount<T>(
  caller: Caller,
  operation: string,
  access: 'read' | 'write',
  work: (call: AccountCall) => Promise<T>,
  right?: 'billing',
): Promise<T> {
  if (!caller.auth.accountId) throw new errors.claimRequired(claimSteps(caller.app.config.BASE_URL))
  const { frame, db } = caller.app
  const found = frame.authenticate(caller.request, null, { audience: caller.auth.audience })
  const principal = found instanceof Promise ? await found : found
  const { accountId } = principal
  const userId = principal.userId ?? null
  const entry = (status: number) => auditEntry(caller.request, principal, status, operation)
  try {
    frame.authorize(principal, right ? { access, right } : { access })
    if (access === 'write' && !right)
      return await frame.auditedChange(db, entry(200), (trx) => work({ ...caller, accountId, userId, db: trx }))
    const output = await work({ ...caller, accountId, userId, db })
    frame.audit.record(entry(200))
    return output
  } catch (error) {
    frame.audit.record(entry(failureStatus(error)))
    throw error
  }
}

export function accountTool<I extends TSchema, O extends TSchema>(spec: AccountToolSpec<I, O>): ToolSpec {
  return defineTool({
    ...spec,
    run: (args, caller) => forAccount(caller, spec.name, spec.access, (call) => spec.run(args, call), spec.right),
  })
}
