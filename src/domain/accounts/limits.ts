import type { Db } from '../../infra/db.ts'
import { errors } from '../../errors.ts'
import { entitlementsOf, type AccountLimits } from './add-ons.ts'
import { planRefused } from './plan-refusals.ts'
import { cheapestPlan, countOf, planEntitlements, within } from './entitlements.ts'

/**
 * The limits of the price list, checked by the domain functions that create sites, add domains
 * and publish, before anything is stored: every room (/v1, MCP, GraphQL, the dashboard) calls
 * those, so each gets the same refusal. Messages name the account, its plan and the plan that
 * allows the action.
 */

const sitesOf = (n: number | null) => countOf(n, 'site', 'sites')
const domainsOf = (n: number | null) => countOf(n, 'own domain', 'own domains')

async function limitsOf(db: Db, accountId: string, lock: boolean): Promise<AccountLimits> {
  const limits = await entitlementsOf(db, accountId, { lock })
  if (!limits) throw new errors.notFound(`No account ${accountId}`)
  return limits
}

async function countSites(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('sites')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** "plan max allows unlimited sites": the cheapest plan with room for `needed` sites. */
function upgradeForSites(needed: number): string {
  const plan = cheapestPlan((e) => within(needed, e.sites))
  return plan ? `plan ${plan} allows ${sitesOf(planEntitlements(plan).sites)}` : 'no plan allows more'
}

/** Where the account stands against its plan's site limit (the dashboard's notice shows it). */
export interface SiteUsage {
  accountId: string
  plan: AccountLimits['plan']
  sites: number
  limit: number | null
}

export async function siteUsage(db: Db, accountId: string): Promise<SiteUsage> {
  const [limits, sites] = await Promise.all([limitsOf(db, accountId, false), countSites(db, accountId)])
  return { accountId, plan: limits.plan, sites, limit: limits.sites }
}

/** What the account is told when it has as many sites as its plan allows, or more. */
export function siteLimitMessage(usage: SiteUsage): string {
  return `The account ${usage.accountId} is on plan ${usage.plan}, which allows ${sitesOf(usage.limit)}, and has ${usage.sites}; ${upgradeForSites(usage.sites + 1)}`
}

/**
 * Refuses one site more than the plan allows (403 plan_limit). Call in the transaction that
 * creates the site: the account row stays locked to its end, so concurrent creations are counted
 * one after the other.
 */
export async function assertSiteAllowed(trx: Db, accountId: string): Promise<void> {
  const limits = await limitsOf(trx, accountId, true)
  if (limits.sites === null) return
  const sites = await countSites(trx, accountId)
  if (sites >= limits.sites)
    throw planRefused('plan_limit', siteLimitMessage({ accountId, plan: limits.plan, sites, limit: limits.sites }), {
      about: 'sites',
      plan: limits.plan,
      allowed: limits.sites,
      has: sites,
    })
}

/**
 * Refuses an own domain the plan does not include: none below lite (403 plan_required), and no
 * more than the plan's included domains plus the extra_domain add-on's quantity (403 plan_limit).
 * Every domain added counts, verified or not. The platform's own site has no limit.
 */
export async function assertOwnDomainAllowed(trx: Db, siteId: string): Promise<void> {
  const site = await trx.selectFrom('sites').select('account_id').where('id', '=', siteId).executeTakeFirst()
  if (!site?.account_id) return
  const limits = await limitsOf(trx, site.account_id, true)
  const accountId = site.account_id
  const ownFrom = cheapestPlan((e) => e.ownDomains !== 0)
  if (limits.ownDomains === 0) {
    throw planRefused(
      'plan_required',
      `The account ${accountId} is on plan ${limits.plan}, which does not allow own domains (its sites live on their platform subdomain); plan ${ownFrom} and above allow them`,
      { about: 'feature', plan: limits.plan, from: ownFrom ?? null },
    )
  }
  if (limits.ownDomains === null) return
  const row = await trx
    .selectFrom('domains')
    .innerJoin('sites', 'sites.id', 'domains.site_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sites.account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  const domains = Number(row.n)
  if (domains < limits.ownDomains) return
  const bigger = cheapestPlan((e) => within(domains + 1, e.ownDomains))
  const extra = limits.addOns.extra_domain ?? 0
  throw planRefused(
    'plan_limit',
    `The account ${accountId} is on plan ${limits.plan}, which includes ${domainsOf(planEntitlements(limits.plan).ownDomains)}` +
      `${extra ? ` (with the extra_domain add-on ×${extra}: ${limits.ownDomains})` : ''}, and has ${domains}; ` +
      `one more extra_domain add-on${bigger ? ` or plan ${bigger} (${domainsOf(planEntitlements(bigger).ownDomains)})` : ''} allows another`,
    { about: 'domains', plan: limits.plan, allowed: limits.ownDomains, has: domains },
  )
}

/**
 * Refuses to publish a site beyond the plan's site limit (403 plan_limit): after a downgrade the
 * account's oldest sites, as many as the plan allows, can still be published; the newer ones stay
 * served as they are but cannot be published, rolled back or brought back live until the account
 * is within its limit again. Nothing is deleted.
 */
export async function assertMayPublish(db: Db, siteId: string): Promise<void> {
  const site = await db.selectFrom('sites').select(['id', 'account_id']).where('id', '=', siteId).executeTakeFirst()
  if (!site?.account_id) return
  const limits = await limitsOf(db, site.account_id, false)
  if (limits.sites === null) return
  // The site's own time is compared in the database: read into a Date it would lose its
  // microseconds, and a site made in the same millisecond before it would not count as older.
  const row = await db
    .selectFrom('sites as s')
    .innerJoin('sites as me', 'me.account_id', 's.account_id')
    .where('me.id', '=', site.id)
    .select((eb) => [
      eb.fn.countAll<string>().as('total'),
      eb.fn
        .countAll<string>()
        .filterWhere((w) =>
          w.or([
            w('s.created_at', '<', w.ref('me.created_at')),
            w.and([w('s.created_at', '=', w.ref('me.created_at')), w('s.id', '<', w.ref('me.id'))]),
          ]),
        )
        .as('older'),
    ])
    .executeTakeFirstOrThrow()
  const total = Number(row.total)
  if (Number(row.older) < limits.sites) return
  throw planRefused(
    'plan_limit',
    `The site ${site.id} is over the limit of the account ${site.account_id}: plan ${limits.plan} allows ${sitesOf(limits.sites)} and the account has ${total}. ` +
      `It stays served as it is, but cannot be published until the account has at most ${sitesOf(limits.sites)} (delete one) or moves up; ${upgradeForSites(total)}`,
    { about: 'publish', plan: limits.plan, allowed: limits.sites },
  )
}
