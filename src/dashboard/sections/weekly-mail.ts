import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'
import { setWeeklySummary, summaryOffered, weeklySummaryWanted } from '../../domain/stats/weekly-summary.ts'
import { errors } from '../../errors.ts'
import { html, raw, type SafeHtml } from '../../infra/html.ts'
import { auditedChange } from '../audited-change.ts'
import { actionForm } from '../layout.ts'

/**
 * The weekly visitor summary by mail (DESIGN.md 18), for plans without scheduled SEO reports (the
 * reports carry the figures): what the Statistics overview says of it, and the owner's switch.
 */
export async function weeklyMailCard(app: FastifyInstance, reply: FastifyReply): Promise<SafeHtml> {
  const { person, t } = reply.request
  const cadence = planEntitlements(person.plan).seoReports
  const body = !summaryOffered(person.plan)
    ? // The message carries nothing people typed (the cadence is the price list's): put in as written, its apostrophe unescaped.
      html`<p>${raw(t.t('stats.weekly.inReports', { cadence }))}</p>`
    : (await weeklySummaryWanted(app.db, person.accountId))
      ? html`<p>${t.t('stats.weekly.on')}</p>
${person.role === 'owner' ? actionForm('/app/stats/weekly-mail', reply.formToken(), t.t('stats.weekly.stop'), { kind: 'secondary', fields: { weekly: 'off' }, inline: false }) : ''}`
      : html`<p>${t.t('stats.weekly.offer')}</p>
${person.role === 'owner' ? actionForm('/app/stats/weekly-mail', reply.formToken(), t.t('stats.weekly.start'), { fields: { weekly: 'on' }, inline: false }) : html`<p class="muted">${t.t('stats.weekly.askOwner')}</p>`}`
  return html`<section class="card" aria-labelledby="weekly-h"><h2 id="weekly-h">${t.t('stats.weekly.heading')}</h2>${body}</section>`
}

const Body = Type.Object(
  { _csrf: Type.Optional(Type.String({ maxLength: 200 })), weekly: Type.Union([Type.Literal('on'), Type.Literal('off')]) },
  { additionalProperties: false },
)

/** POST /app/stats/weekly-mail: the owner asks for the weekly summary, or stops it. */
export default async function weeklyMailRoute(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.post(
    '/stats/weekly-mail',
    {
      config: { operation: 'dashboard.stats.weekly-mail', role: 'owner' },
      schema: { hide: true, body: Body },
    },
    async (request, reply) => {
      const wanted = request.body.weekly === 'on'
      if (wanted && !summaryOffered(request.person.plan)) throw new errors.conflict(request.t.t('stats.weekly.notOffered'))
      await auditedChange(request, (trx) => setWeeklySummary(trx, request.person.accountId, wanted))
      return reply.redirect(`/app/stats?done=${wanted ? 'weekly-on' : 'weekly-off'}`, 303)
    },
  )
}
