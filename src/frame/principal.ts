import type { Role } from '../domain/accounts/members.ts'
import type { Plan } from '../domain/accounts/plans.ts'
import type { Charge } from '../domain/accounts/quota.ts'

/** Who a call on an account's data speaks for, as `authenticate` found it. */
export type Principal = ApiPrincipal | SessionPrincipal

/** A caller of an API room (/v1, /mcp, GraphQL): charged one call against its account's hour. */
export type ApiPrincipal = ApiTokenPrincipal | OAuthPrincipal

/** The member who acts, and what their role allows (`authorize` asks it). */
interface Acting {
  /** The person (`usr_…`); null for a token the operator made for the account, which acts as its owner. */
  userId: string | null
  role: Role
}

interface Charged extends Acting {
  accountId: string
  plan: Plan
  scopes: readonly string[]
  /** The count this call was charged with: the hour's budget, what is used and when it resets. */
  quota: Charge
  /** The resource the credential was presented to (its challenges name its metadata). */
  audience: string
}

/** An account's API token (`wps_tok_…`). */
export interface ApiTokenPrincipal extends Charged {
  kind: 'api_token'
  tokenId: string
  clientId: null
}

/** An OAuth access token acting for an account: a person's client, or an agent its person claimed. */
export interface OAuthPrincipal extends Charged {
  kind: 'oauth'
  tokenId: null
  clientId: string
  /** `sub`: a user (`usr_…`) or an agent registration (`reg_…`). */
  subject: string
}

/** A person signed in to the dashboard, acting in the account chosen in this browser: no token, no hourly budget. */
export interface SessionPrincipal extends Acting {
  kind: 'session'
  /** The person (`usr_…`). */
  id: string
  userId: string
  accountId: string
  plan: Plan
  email: string
  /** The language the person chose (de, en, fr), null until they choose. */
  language: string | null
  tokenId: null
  clientId: null
}

export function isApiPrincipal(principal: Principal): principal is ApiPrincipal {
  return principal.kind !== 'session'
}
