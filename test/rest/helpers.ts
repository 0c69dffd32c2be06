import type { FastifyInstance } from 'fastify'
import { API_SCOPES, createApiToken } from '../../src/domain/accounts/api-tokens.ts'
import type { Plan } from '../../src/domain/accounts/plans.ts'
import { newId } from '../../src/infra/crypto.ts'
import { signAccessToken } from '../../src/identity/oauth/access-tokens.ts'

export interface TestAccount {
  accountId: string
  tokenId: string
  secret: string
  headers: { authorization: string }
}

/** A fresh account on `plan` with an API token holding `scopes`. */
export async function makeAccount(
  app: FastifyInstance,
  plan: Plan = 'pro',
  scopes: readonly string[] = API_SCOPES,
  quotaOverride: number | null = null,
): Promise<TestAccount> {
  const accountId = newId('acct')
  await app.db.insertInto('accounts').values({ id: accountId, plan, quota_override: quotaOverride }).execute()
  const { token, secret } = await createApiToken(app.db, { accountId, name: 'test', scopes })
  return { accountId, tokenId: token.id, secret, headers: { authorization: `Bearer ${secret}` } }
}

/** An account OAuth access token as the token endpoint issues it, for the REST API or another audience. */
export async function oauthToken(
  app: FastifyInstance,
  accountId: string | undefined,
  scopes: string[],
  audience = `${app.config.API_URL}/v1`,
  expiresIn = 600,
  subject = 'usr_test',
) {
  const signed = await signAccessToken(app.signer, {
    subject,
    clientId: 'cli_test',
    audience,
    scope: scopes,
    ...(accountId ? { accountId } : {}),
    expiresIn,
  })
  return signed
}

/** Audit records are written in batches: wait until the frame's batch has gone out. */
export const afterAuditFlush = () => new Promise((resolve) => setTimeout(resolve, 1300))
