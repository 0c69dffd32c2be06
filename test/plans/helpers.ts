import { updateAccount } from '../../src/domain/accounts/accounts.ts'
import { API_SCOPES, createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'
import { findOrCreateUser, loadEmailHasher } from '../../src/identity/stores/users.ts'
import type { App } from '../../src/app.ts'

export interface Owner {
  accountId: string
  userId: string
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
  return { accountId: user.accountId, userId: user.id, email: user.email, headers: { authorization: `Bearer ${secret}` } }
}

/** An access token for /mcp as the token endpoint issues it to the person's client. */
export async function mcpToken(app: App, who: Pick<Owner, 'accountId' | 'userId'>): Promise<string> {
  const signed = await signAccessToken(app.signer, {
    subject: who.userId,
    clientId: 'cli_test',
    audience: `${app.config.BASE_URL}/mcp`,
    scope: ['mcp:read', 'mcp:tools'],
    accountId: who.accountId,
    expiresIn: 600,
  })
  return signed.token
}
