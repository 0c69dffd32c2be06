import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { accountById } from '../../domain/accounts/accounts.ts'
import { loadPricing } from '../../domain/accounts/plans.ts'
import { hourlyLimit, WINDOW_SECONDS } from '../../domain/accounts/quota.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { siteUsage } from '../../domain/accounts/limits.ts'
import { entitlementsOf } from '../../domain/accounts/add-ons.ts'
import { listed, planDetails, plansWithApi, siteLimitNotice } from './plan-notice.ts'

/** GET /app: the plan and this hour's use of the REST quota, shown as a bar. */
export default async function overviewSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const plans = new Map(loadPricing().plans.map((plan) => [plan.id, plan]))
  routes.get('/', { config: { operation: 'dashboard.overview' }, schema: { hide: true } }, async (request, reply) => {
    const { t } = request
    const account = await accountById(app.db, request.person.accountId)
    if (!account) return reply.redirect('/signin', 303)
    const limit = hourlyLimit(account.plan, account.quota_override)
    const used = await app.frame.usage(account.id)
    const plan = plans.get(account.plan)
    const minutesLeft = Math.ceil((WINDOW_SECONDS - ((Date.now() / 1000) % WINDOW_SECONDS)) / 60)
    const strong = { strong: (words: SafeHtml) => html`<strong>${words}</strong>` }
    return reply.page(
      t.t('overview.title'),
      'overview',
      html`<section class="card" aria-labelledby="plan-h"><h2 id="plan-h">${t.t('overview.plan.heading')}</h2>
<p>${t.rich('overview.plan.text', { plan: plan?.name ?? account.plan, access: plan?.api_access ?? 'none', webhooks: plan?.webhooks ? 'yes' : 'no' }, strong)}</p>
${planDetails(t, (await entitlementsOf(app.db, account.id))!)}
${siteLimitNotice(t, await siteUsage(app.db, account.id))}</section>
<section class="card" aria-labelledby="usage-h"><h2 id="usage-h">${t.t('overview.usage.heading')}</h2>
${
  limit > 0
    ? html`<label for="quota">${t.t('overview.usage.label', { used, limit, minutes: minutesLeft })}</label><meter id="quota" min="0" max="${limit}" low="${Math.round(limit * 0.7)}" high="${Math.round(limit * 0.9)}" optimum="0" value="${Math.min(used, limit)}">${t.t('overview.usage.meter', { used, limit })}</meter>`
    : html`<p>${t.t('overview.usage.noApi', { plans: listed(t, plansWithApi) })}</p>`
}</section>`,
    )
  })
}
