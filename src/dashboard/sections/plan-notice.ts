import type { AccountLimits } from '../../domain/accounts/add-ons.ts'
import { addOnTerms, apiAllows, cheapestPlan, countOf, planEntitlements, within } from '../../domain/accounts/entitlements.ts'
import type { SiteUsage } from '../../domain/accounts/limits.ts'
import { ADD_ONS, PLANS } from '../../domain/accounts/plans.ts'
import { html, type SafeHtml } from '../../infra/html.ts'

const sites = (n: number | null) => countOf(n, 'site', 'sites')

/** "plan pro (10 sites)": the cheapest plan with room for `needed` sites, as a link to the billing page where it is chosen. */
function upgradeFor(needed: number): SafeHtml {
  const plan = cheapestPlan((e) => within(needed, e.sites))
  return plan
    ? html`<a href="/app/billing?plan=${plan}">plan ${planEntitlements(plan).name}</a> (${sites(planEntitlements(plan).sites)})`
    : html`a plan with more sites`
}

/**
 * What the dashboard says about the account's sites against its plan: how many it has of how many
 * the plan allows; at the limit, which plan allows another; over it (after a downgrade), that every
 * site stays online but only the oldest ones can be published until the account is within it again.
 */
export function siteLimitNotice(usage: SiteUsage): SafeHtml {
  const plan = planEntitlements(usage.plan).name
  if (usage.limit === null) return html`<p>You have ${sites(usage.sites)}; plan ${plan} allows any number.</p>`
  if (usage.sites < usage.limit) return html`<p>You have ${usage.sites} of the ${sites(usage.limit)} plan ${plan} allows.</p>`
  if (usage.sites === usage.limit) {
    return html`<p class="notice" role="status">You have ${usage.sites} of the ${sites(usage.limit)} plan ${plan} allows: a new site needs ${upgradeFor(usage.sites + 1)}, or delete one first.</p>`
  }
  return html`<div class="error" role="alert"><p>Your account has ${sites(usage.sites)}, more than the ${sites(usage.limit)} plan ${plan} allows. Every site stays online as it is, but only the oldest ${usage.limit === 1 ? 'one' : usage.limit} can be published until the account is within its plan: delete ${sites(usage.sites - usage.limit)}, or move to ${upgradeFor(usage.sites)}.</p></div>`
}

/** What else the account's plan and add-ons include: own domains, members, the scheduled SEO report, the add-ons on. */
export function planDetails(limits: AccountLimits): SafeHtml {
  const on = ADD_ONS.filter((id) => limits.addOns[id] !== undefined).map((id) =>
    addOnTerms(id).perUnit ? `${addOnTerms(id).name} ×${limits.addOns[id]}` : addOnTerms(id).name,
  )
  const domains =
    limits.ownDomains === 0 ? 'none (your sites live on their platform subdomain)' : countOf(limits.ownDomains, 'own domain', 'own domains')
  const report = limits.seoReports === 'none' ? 'none' : `${limits.seoReports} for each live site`
  return html`<p>Own domains: ${domains}. Members: ${countOf(limits.seats, 'member', 'members')}. Scheduled SEO report: ${report}. Add-ons: ${on.length ? on.join(', ') : 'none'}.</p>`
}

/** "plus, pro and max": the plans with REST API access, as the price list gives it. */
export const plansWithApi = PLANS.filter((plan) => apiAllows(plan, 'read'))
