import { updateAccount } from '../../src/domain/accounts.ts'
import { API_SCOPES, createApiToken } from '../../src/domain/api-tokens.ts'
import type { Plan } from '../../src/domain/plans.ts'
import { findOrCreateUser, loadEmailHasher } from '../../src/identity/users.ts'
import type { App } from '../../src/app.ts'

export interface Owner {
  accountId: string
  email: string
  /** An API token of the account with every scope, for /v1. */
  headers: { authorization: string }
}

/** A person with their own account on `plan` (as the first sign-in and the operator's set-plan make it), and an API token. */
export async function owner(app: App, email: string, plan: Plan): Promise<Owner> {
  const hash = (await loadEmailHasher(app.db, app.keyring))(email)
  const user = await findOrCreateUser(app.db, app.keyring, hash, email)
  await updateAccount(app.db, user.accountId, { plan })
  const { secret } = await createApiToken(app.db, { accountId: user.accountId, name: 'plans', scopes: API_SCOPES })
  return { accountId: user.accountId, email: user.email, headers: { authorization: `Bearer ${secret}` } }
}

/** Polls `check` until it answers something truthy. */
export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
