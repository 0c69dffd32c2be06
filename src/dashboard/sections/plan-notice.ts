import type { AccountLimits } from '../../domain/accounts/add-ons.ts'
import { addOnTerms, apiAllows, cheapestPlan, planEntitlements, within } from '../../domain/accounts/entitlements.ts'
import type { SiteUsage } from '../../domain/accounts/limits.ts'
import { ADD_ONS, PLANS } from '../../domain/accounts/plans.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { html, type SafeHtml } from '../../infra/html.ts'

/** A count of an allowance in words: "3 sites", "unlimited sites" (null is unlimited). */
const sites = (t: Translator, n: number | null) => (n === null ? t.t('overview.sites.unlimitedCount') : t.t('overview.sites.count', { n }))

/** "plan pro (10 sites)": the cheapest plan with room for `needed` sites, as a link to the billing page where it is chosen. */
function upgradeFor(t: Translator, needed: number): SafeHtml {
  const plan = cheapestPlan((e) => within(needed, e.sites))
  if (!plan) return html`${t.t('overview.sites.morePlan')}`
  const { name, sites: allowed } = planEntitlements(plan)
  return t.rich(
    'overview.sites.upgradeTo',
    { plan: name, sites: sites(t, allowed) },
    { link: (words) => html`<a href="/app/billing?plan=${plan}">${words}</a>` },
  )
}

/**
 * What the dashboard says about the account's sites against its plan: how many it has of how many
 * the plan allows; at the limit, which plan allows another; over it (after a downgrade), that every
 * site stays online but only the oldest ones can be published until the account is within it again.
 */
export function siteLimitNotice(t: Translator, usage: SiteUsage): SafeHtml {
  const plan = planEntitlements(usage.plan).name
  if (usage.limit === null) return html`<p>${t.t('overview.sites.any', { sites: usage.sites, plan })}</p>`
  const counts = { sites: usage.sites, limit: usage.limit, plan }
  if (usage.sites < usage.limit) return html`<p>${t.t('overview.sites.within', counts)}</p>`
  // The upgrade is markup made here (a link or words): an empty tag of the message stands for it.
  if (usage.sites === usage.limit) {
    return html`<p class="notice" role="status">${t.rich('overview.sites.atLimit', counts, { upgrade: () => upgradeFor(t, usage.sites + 1) })}</p>`
  }
  return html`<div class="error" role="alert"><p>${t.rich('overview.sites.over', { ...counts, extra: usage.sites - usage.limit }, { upgrade: () => upgradeFor(t, usage.sites) })}</p></div>`
}

/** What else the account's plan and add-ons include: own domains, members, the scheduled SEO report, the add-ons on. */
export function planDetails(t: Translator, limits: AccountLimits): SafeHtml {
  const on = ADD_ONS.filter((id) => limits.addOns[id] !== undefined).map((id) =>
    addOnTerms(id).perUnit ? `${t.t(`billing.addOn.${id}`)} ×${limits.addOns[id]}` : t.t(`billing.addOn.${id}`),
  )
  const domains =
    limits.ownDomains === 0
      ? t.t('overview.domains.none')
      : limits.ownDomains === null
        ? t.t('overview.domains.unlimited')
        : t.t('overview.domains.count', { n: limits.ownDomains })
  const members = limits.seats === null ? t.t('overview.members.unlimited') : t.t('overview.members.count', { n: limits.seats })
  return html`<p>${t.t('overview.details', {
    domains,
    members,
    report: limits.seoReports,
    addOns: on.length ? listed(t, on) : t.t('overview.addOns.none'),
  })}</p>`
}

/** "a, b and c" in the page's language. */
export function listed(t: Translator, items: readonly string[]): string {
  // British English lists without the serial comma, as the rest of the English pages write.
  return new Intl.ListFormat(t.lang === 'en' ? 'en-GB' : t.lang, { type: 'conjunction' }).format(items)
}

/** "plus, pro and max": the plans with REST API access, as the price list gives it. */
export const plansWithApi = PLANS.filter((plan) => apiAllows(plan, 'read'))
