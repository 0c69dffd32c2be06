import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'
import { setWeeklySummary, summaryOffered, weeklySummaryWanted } from '../../domain/stats/weekly-summary.ts'
import { errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { auditedChange } from '../audited-change.ts'
import { actionForm } from '../layout.ts'

/**
 * The weekly visitor summary by mail (DESIGN.md 18), for plans without scheduled SEO reports (the
 * reports carry the figures): what the Statistics overview says of it, and the owner's switch.
 */
export async function weeklyMailCard(app: FastifyInstance, reply: FastifyReply): Promise<SafeHtml> {
  const { person } = reply.request
  const cadence = planEntitlements(person.plan).seoReports
  const body = !summaryOffered(person.plan)
    ? html`<p>Your plan's ${cadence} SEO report of each live site carries its visitors, page views and messages by mail.</p>`
    : (await weeklySummaryWanted(app.db, person.accountId))
      ? html`<p>Every Monday the visitors of your live sites in the week before come by mail to the account's owner.</p>
${person.role === 'owner' ? actionForm('/app/stats/weekly-mail', reply.formToken(), 'Stop the weekly mail', { kind: 'secondary', fields: { weekly: 'off' }, inline: false }) : ''}`
      : html`<p>Get the visitors, page views and messages of your live sites in the week before by mail, every Monday.</p>
${person.role === 'owner' ? actionForm('/app/stats/weekly-mail', reply.formToken(), 'Send me the week by mail', { fields: { weekly: 'on' }, inline: false }) : html`<p class="muted">An owner of the account can ask for it.</p>`}`
  return html`<section class="card" aria-labelledby="weekly-h"><h2 id="weekly-h">By mail</h2>${body}</section>`
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
      if (wanted && !summaryOffered(request.person.plan))
        throw new errors.conflict("Your plan's SEO reports already carry the week's visitors by mail.")
      await auditedChange(request, (trx) => setWeeklySummary(trx, request.person.accountId, wanted))
      return reply.redirect(`/app/stats?done=${wanted ? 'weekly-on' : 'weekly-off'}`, 303)
    },
  )
}
