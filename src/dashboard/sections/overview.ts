import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { accountById } from '../../domain/accounts/accounts.ts'
import { loadPricing } from '../../domain/accounts/plans.ts'
import { hourlyLimit, WINDOW_SECONDS } from '../../domain/accounts/quota.ts'
import { html } from '../../infra/html.ts'
import { siteUsage } from '../../domain/accounts/limits.ts'
import { entitlementsOf } from '../../domain/accounts/add-ons.ts'
import { planDetails, plansWithApi, siteLimitNotice } from './plan-notice.ts'

/** GET /app: the plan and this hour's use of the REST quota, shown as a bar. */
export default async function overviewSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  const plans = new Map(loadPricing().plans.map((plan) => [plan.id, plan]))
  routes.get('/', { config: { operation: 'dashboard.overview' }, schema: { hide: true } }, async (request, reply) => {
    const account = await accountById(app.db, request.person.accountId)
    if (!account) return reply.redirect('/signin', 303)
    const limit = hourlyLimit(account.plan, account.quota_override)
    const used = await app.frame.usage(account.id)
    const plan = plans.get(account.plan)
    const minutesLeft = Math.ceil((WINDOW_SECONDS - ((Date.now() / 1000) % WINDOW_SECONDS)) / 60)
    return reply.page(
      'Overview',
      'overview',
      html`<section class="card" aria-labelledby="plan-h"><h2 id="plan-h">Plan</h2>
<p>Your plan is <strong>${plan?.name ?? account.plan}</strong>. REST API access: <strong>${plan?.api_access === 'read_write' ? 'read and write' : plan?.api_access === 'read' ? 'read only' : 'none'}</strong>${plan?.webhooks ? ', webhooks included' : ''}.</p>
${planDetails((await entitlementsOf(app.db, account.id))!)}
${siteLimitNotice(await siteUsage(app.db, account.id))}</section>
<section class="card" aria-labelledby="usage-h"><h2 id="usage-h">Usage this hour</h2>
${
  limit > 0
    ? html`<label for="quota">${used} of ${limit} API requests used; the window resets in ${minutesLeft} min.</label><meter id="quota" min="0" max="${limit}" low="${Math.round(limit * 0.7)}" high="${Math.round(limit * 0.9)}" optimum="0" value="${Math.min(used, limit)}">${used} of ${limit}</meter>`
    : html`<p>Your plan has no REST API access; plans ${plansWithApi.slice(0, -1).join(', ')} and ${plansWithApi.at(-1)} do.</p>`
}</section>`,
    )
  })
}
