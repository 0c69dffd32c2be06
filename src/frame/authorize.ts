import { PLANS, type Plan } from '../domain/accounts/plans.ts'
import { apiAllows } from '../domain/accounts/entitlements.ts'
import { errors, withHeaders } from '../errors.ts'
import { challenge, resourceMetadataUrl } from './bearer.ts'
import type { Principal } from './principal.ts'
import { assertRole } from './roles.ts'
import type { Role } from '../domain/accounts/members.ts'
import { secondsUntilReset } from './rate-limit-headers.ts'
import { planRefused } from '../domain/accounts/plan-refusals.ts'

/**
 * Something of the price list an action needs (API access, changes through the API, webhooks, own
 * domains, an add-on), and which plans have it. The entitlements of the price list supply these;
 * `authorize` only asks and words the refusal.
 */
export interface Entitlement {
  /** What the plan must allow, as the refusal names it: "API access", "webhooks". */
  name: string
  allows(plan: Plan): boolean
}

/** What the API rooms need of a plan: reading, and changing things. */
export interface ApiAccess {
  read: Entitlement
  write: Entitlement
}

/** The API access of DESIGN.md 7, as the price list's entitlements give it. */
export const planApiAccess: ApiAccess = {
  read: { name: 'API access', allows: (plan) => apiAllows(plan, 'read') },
  write: { name: 'changes through the API', allows: (plan) => apiAllows(plan, 'write') },
}

export interface AuthorizeOptions {
  /** The scope the credential must carry (API principals; MCP's scopes are checked by its transport). */
  scope?: string
  /** Whether the call changes things; a read by default. */
  access?: 'read' | 'write'
  /** Something more the account's plan must allow. */
  entitlement?: Entitlement
  /**
   * The least role of the member the action needs; without it the owner for webhooks, an editor
   * for a change (`access: 'write'`), a viewer for a read (src/frame/roles.ts).
   */
  role?: Role
  /**
   * A right the action needs beyond the role. `billing` (DESIGN.md 16): only owners, on any plan
   * (a free account must be able to pay for the plan that opens the API), within a small hourly
   * budget of its own where the plan has less.
   */
  right?: 'billing'
}

/** The calls an hour a billing call may use on a plan whose API budget is smaller (free and lite have none). */
export const BILLING_CALLS_PER_HOUR = 60

/** The registry's plan_required, naming the account, its plan and the cheapest plan that allows the action. */
export function planRequired(accountId: string, plan: Plan, entitlement: Entitlement): Error {
  const cheapest = PLANS.find((candidate) => entitlement.allows(candidate))
  const upgrade = cheapest ? `plan ${cheapest} and above allow it` : 'no plan allows it'
  return planRefused('plan_required', `The account ${accountId} is on plan ${plan}, which does not allow ${entitlement.name}; ${upgrade}`, {
    about: 'feature',
    plan,
    from: cheapest ?? null,
  })
}

/**
 * Whether the principal may make this call, in the order of DESIGN.md 7: the plan's API access
 * (403 plan_required), the hour's budget (429 rate_limited with Retry-After), the scope (403
 * insufficient_scope with its challenge), a change on a read-only plan (403 plan_required), the
 * member's role (403 role_required), then the entitlement. A signed-in person (the dashboard) has
 * no budget and no scopes: their role and the entitlement are asked. Refusals are thrown, carrying
 * their headers.
 */
export function authorize(principal: Principal, options: AuthorizeOptions, access: ApiAccess = planApiAccess): void {
  const { accountId, plan } = principal
  if (options.right === 'billing') {
    if (principal.kind !== 'session' && principal.quota.used > Math.max(principal.quota.limit, BILLING_CALLS_PER_HOUR)) {
      const seconds = secondsUntilReset(principal.quota)
      throw withHeaders(new errors.rateLimited(`Too many billing calls this hour; retry in ${seconds} seconds`), {
        'retry-after': String(seconds),
      })
    }
    assertRole(accountId, principal.role, { role: 'owner' })
    return
  }
  if (principal.kind !== 'session') {
    if (!access.read.allows(plan)) throw planRequired(accountId, plan, access.read)
    const { quota } = principal
    if (quota.used > quota.limit) {
      const seconds = secondsUntilReset(quota)
      const refused = new errors.rateLimited(
        `The account ${accountId} has used its ${quota.limit} calls for this hour; retry in ${seconds} seconds`,
      )
      throw withHeaders(refused, { 'retry-after': String(seconds) })
    }
    if (options.scope && !principal.scopes.includes(options.scope)) {
      const header = challenge({
        error: 'insufficient_scope',
        error_description: `This call needs the scope ${options.scope}`,
        resource_metadata: resourceMetadataUrl(principal.audience),
        scope: options.scope,
      })
      throw withHeaders(new errors.insufficientScope(`The token lacks the scope ${options.scope}`), { 'www-authenticate': header })
    }
    if (options.access === 'write' && !access.write.allows(plan)) throw planRequired(accountId, plan, access.write)
  }
  assertRole(accountId, principal.role, options)
  if (options.entitlement && !options.entitlement.allows(plan)) throw planRequired(accountId, plan, options.entitlement)
}
