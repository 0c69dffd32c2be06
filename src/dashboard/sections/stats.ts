import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'
import type { SiteRecord } from '../../domain/sites/sites.ts'
import { accountSiteTotals, addDays, conversionRate, siteStats, type SiteStatsDetail } from '../../domain/stats/report.ts'
import { errors } from '../../errors.ts'
import { html, raw, type SafeHtml } from '../../infra/html.ts'
import { csvTable } from '../csv.ts'
import { dataTable } from '../layout.ts'
import type { Translator } from '../../domain/i18n/translator.ts'
import { errorLine } from './editor/form.ts'
import { crumbs, ownSite, SiteParams } from './editor/context.ts'
import { PAGEVIEW_COLOUR, VISITOR_COLOUR, visitorsChart } from './stats-chart.ts'
import weeklyMailRoute, { weeklyMailCard } from './weekly-mail.ts'

/** The spans a person picks from (DESIGN.md 18): the last 7, 30 or 90 days, today (UTC) included. */
export const PERIODS = [7, 30, 90] as const
type Period = (typeof PERIODS)[number]
const DEFAULT_PERIOD: Period = 30
/** How many rows of each list the page shows; the CSV files hold all the answer has. */
const SHOWN = 10

const PeriodQuery = Type.Object(
  { days: Type.Optional(Type.String({ maxLength: 20 })), done: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
)
const TABLES = ['days', 'pages', 'referrers', 'devices', 'browsers', 'campaigns'] as const
type TableName = (typeof TABLES)[number]
const CsvQuery = Type.Object(
  { days: Type.Optional(Type.String({ maxLength: 20 })), table: Type.Optional(Type.String({ maxLength: 20 })) },
  { additionalProperties: false },
)

/** The period a query names: one of PERIODS, 30 without one, undefined for anything else. */
function periodOf(days: string | undefined): Period | undefined {
  if (days === undefined || days === '') return DEFAULT_PERIOD
  return PERIODS.find((p) => String(p) === days)
}

/** The span of the last `days` days, today (UTC) included. */
function spanOf(days: Period, now = Date.now()): { from: string; to: string } {
  const to = new Date(now).toISOString().slice(0, 10)
  return { from: addDays(to, -(days - 1)), to }
}

/** A part of a whole in per cent, as the page's language writes it ("13%", "13 %"); a dash for no whole. */
const share = (t: Translator, part: number, whole: number) =>
  whole === 0 ? '–' : t.t('stats.percent', { rate: Math.round((part / whole) * 100) })
const srOnly = (words: SafeHtml) => html`<span class="sr-only">${words}</span>`

// The page's own layout: the totals side by side, the chart's legend, a CSV link under each list.
const STYLE = raw(`<style>.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0}
.figures div{background:#f1f5f9;border-radius:6px;padding:.5rem .75rem}.figures dt{font-size:.9rem;color:#475569}.figures dd{margin:0;font-size:1.5rem;font-weight:700}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;margin-right:.35rem;vertical-align:-.1rem}
.period{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}.period .field{margin:0;min-width:12rem}</style>`)

/** A list of the page: its first rows as a table (or a line saying there is nothing), and its CSV download. */
function listSection(
  t: Translator,
  id: string,
  title: string,
  /** The table's own name: the section around it is a region named by its heading already. */
  tableLabel: string,
  csvHref: string,
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | SafeHtml>>,
  empty: string,
): SafeHtml {
  return html`<section class="card" aria-labelledby="${id}-h"><h2 id="${id}-h">${title}</h2>
${rows.length === 0 ? html`<p>${empty}</p>` : dataTable(tableLabel, columns, rows.slice(0, SHOWN))}
${rows.length > SHOWN ? html`<p class="muted">${t.t('stats.firstShown', { shown: SHOWN, all: rows.length })}</p>` : ''}
${rows.length === 0 ? '' : html`<p><a href="${csvHref}" download>${t.rich('stats.download', { what: t.lang === 'de' ? title : title.toLowerCase() }, { hidden: srOnly })}</a></p>`}
</section>`
}

function periodForm(t: Translator, site: SiteRecord, chosen: string, problem?: string): SafeHtml {
  return html`<form method="get" action="/app/sites/${site.id}/stats" class="period">
<div class="field${problem ? ' invalid' : ''}"><label for="days">${t.t('stats.period')}</label>
${problem ? errorLine('days', problem, t) : ''}
<select id="days" name="days"${problem ? html` aria-invalid="true" aria-describedby="days-error"` : ''}>${PERIODS.map((p) => html`<option value="${p}"${String(p) === chosen ? ' selected' : ''}>${t.t('stats.lastDays', { days: p })}</option>`)}</select></div>
<button type="submit" class="secondary">${t.t('stats.show')}</button>
</form>`
}

/**
 * The figures of a site's statistics. Its days are UTC days, named as the CSV files name them
 * (2026-11-28), in every language.
 */
function statsBody(t: Translator, site: SiteRecord, days: Period, stats: SiteStatsDetail, retentionDays: number): SafeHtml {
  const count = (n: number) => t.number(n)
  const csvLink = (href: string, what: string) =>
    html`<p><a href="${href}" download>${t.rich('stats.download', { what }, { hidden: srOnly })}</a></p>`
  const csv = (table: TableName) => `/app/sites/${site.id}/stats.csv?days=${days}&table=${table}`
  const { totals } = stats
  const rate = conversionRate(totals)
  const keptFrom = addDays(stats.to, -(retentionDays - 1))
  const deviceShare = (n: number) =>
    share(
      t,
      n,
      stats.devices.reduce((sum, d) => sum + d.visitors, 0),
    )
  const [visitorsWord, viewsWord, messagesWord] = [t.t('stats.visitors'), t.t('stats.pageviews'), t.t('stats.messages')]
  return html`<p class="muted">${t.t('stats.span', { from: stats.from, to: stats.to })}</p>
${keptFrom > stats.from ? html`<p class="notice" role="note">${t.rich('stats.retention', { days: retentionDays, months: Math.round(retentionDays / 30.44), long: retentionDays < 60 ? 'no' : 'yes', from: keptFrom }, { link: (words) => html`<a href="/app/billing">${words}</a>` })}</p>` : ''}
<section class="card" aria-labelledby="totals-h"><h2 id="totals-h">${t.t('stats.inAll')}</h2>
<dl class="figures"><div><dt>${visitorsWord}</dt><dd>${count(totals.visitors)}</dd></div><div><dt>${viewsWord}</dt><dd>${count(totals.pageviews)}</dd></div><div><dt>${messagesWord}</dt><dd>${count(totals.conversions)}</dd></div><div><dt>${t.t('stats.rate')}</dt><dd>${rate === null ? '–' : t.t('stats.percent', { rate })}</dd></div></dl>
<p class="muted">${t.t('stats.rate.hint')}</p>
</section>
<section class="card" aria-labelledby="days-h"><h2 id="days-h">${t.t('stats.perDay')}</h2>
<ul class="legend" aria-hidden="true"><li><span class="swatch" style="background:${VISITOR_COLOUR}"></span>${visitorsWord}</li><li><span class="swatch" style="background:${PAGEVIEW_COLOUR}"></span>${viewsWord}</li></ul>
${visitorsChart(t, stats.days, t.t('stats.chart.title', { days }))}
<details><summary>${t.t('stats.everyDay')}</summary>
${dataTable(
  t.t('stats.everyDay.table'),
  [t.t('stats.col.day'), visitorsWord, viewsWord, messagesWord],
  [...stats.days.keys()]
    .reverse()
    .map((i) => [
      t.date(stats.days[i]!.date),
      count(stats.days[i]!.visitors),
      count(stats.days[i]!.pageviews),
      count(stats.conversionsByDay[i] ?? 0),
    ]),
)}
</details>
${csvLink(csv('days'), t.t('stats.perDay.csv'))}
</section>
${listSection(
  t,
  'pages',
  t.t('stats.pages'),
  t.t('stats.pages.table'),
  csv('pages'),
  [t.t('stats.col.page'), viewsWord, visitorsWord],
  stats.pages.map((p) => [html`<code class="long">${p.path}</code>`, count(p.pageviews), count(p.visitors)]),
  t.t('stats.pages.none'),
)}
${listSection(
  t,
  'referrers',
  t.t('stats.referrers'),
  t.t('stats.referrers.table'),
  csv('referrers'),
  [t.t('stats.col.cameFrom'), visitorsWord],
  stats.referrers.map((r) => [r.host, count(r.visitors)]),
  t.t('stats.referrers.none'),
)}
${listSection(
  t,
  'devices',
  t.t('stats.devices'),
  t.t('stats.devices.table'),
  csv('devices'),
  [t.t('stats.col.device'), visitorsWord, t.t('stats.col.share')],
  stats.devices.map((d) => [
    d.kind === 'desktop' || d.kind === 'mobile' || d.kind === 'tablet' ? t.t(`stats.device.${d.kind}`) : d.kind,
    count(d.visitors),
    deviceShare(d.visitors),
  ]),
  t.t('stats.noVisits'),
)}
${listSection(
  t,
  'browsers',
  t.t('stats.browsers'),
  t.t('stats.browsers.table'),
  csv('browsers'),
  [t.t('stats.col.browser'), visitorsWord],
  stats.browsers.map((b) => [b.name, count(b.visitors)]),
  t.t('stats.noVisits'),
)}
${listSection(
  t,
  'campaigns',
  t.t('stats.campaigns'),
  t.t('stats.campaigns.table'),
  csv('campaigns'),
  [t.t('stats.col.kind'), t.t('stats.col.value'), visitorsWord, viewsWord],
  stats.campaigns.map((c) => [t.t(`stats.campaign.${c.kind}`), c.value, count(c.visitors), count(c.pageviews)]),
  t.t('stats.campaigns.none'),
)}`
}

/** One list of the statistics as a CSV file. */
function statsCsv(stats: SiteStatsDetail, table: TableName): string {
  switch (table) {
    case 'days':
      return csvTable(
        ['date', 'visitors', 'pageviews', 'conversions'],
        stats.days.map((d, i) => [d.date, d.visitors, d.pageviews, stats.conversionsByDay[i] ?? 0]),
      )
    case 'pages':
      return csvTable(
        ['path', 'pageviews', 'visitors'],
        stats.pages.map((p) => [p.path, p.pageviews, p.visitors]),
      )
    case 'referrers':
      return csvTable(
        ['host', 'visitors'],
        stats.referrers.map((r) => [r.host, r.visitors]),
      )
    case 'devices':
      return csvTable(
        ['device', 'visitors'],
        stats.devices.map((d) => [d.kind, d.visitors]),
      )
    case 'browsers':
      return csvTable(
        ['browser', 'visitors'],
        stats.browsers.map((b) => [b.name, b.visitors]),
      )
    case 'campaigns':
      return csvTable(
        ['kind', 'value', 'visitors', 'pageviews'],
        stats.campaigns.map((c) => [c.kind, c.value, c.visitors, c.pageviews]),
      )
  }
}

/**
 * Statistics (DESIGN.md 18): a site's visitors counted without cookies, for the last 7, 30 or 90
 * days, as a chart drawn on the server with the same figures in a table, the top pages,
 * referrers, devices, browsers and campaigns, each downloadable as CSV; and the account's sites
 * side by side, with the weekly summary by mail. Plain forms: it works without script.
 */
export default async function statsSection(app: FastifyInstance) {
  await app.register(weeklyMailRoute)
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/stats',
    { config: { operation: 'dashboard.stats.list' }, schema: { hide: true, querystring: PeriodQuery } },
    async (request, reply) => {
      const { t } = request
      const days = periodOf(request.query.days)
      if (!days) throw new errors.validationFailed(t.t('stats.periodProblem'))
      const span = spanOf(days)
      const sites = await accountSiteTotals(app.db, request.person.accountId, span.from, span.to)
      const body = html`<p>${t.t('stats.overview.intro', { days, from: span.from, to: span.to })}</p>
${
  sites.length === 0
    ? html`<p>${t.t('sites.none')}</p>`
    : dataTable(
        t.t('sites.table'),
        [t.t('stats.col.site'), t.t('stats.visitors'), t.t('stats.pageviews'), t.t('stats.messages')],
        sites.map((s) => [
          html`<a href="/app/sites/${s.siteId}/stats?days=${days}">${s.name}</a>`,
          t.number(s.visitors),
          t.number(s.pageviews),
          t.number(s.conversions),
        ]),
      )
}
<p>${PERIODS.map((p) => (p === days ? html`<strong>${t.t('stats.lastDays', { days: p })}</strong> ` : html`<a href="/app/stats?days=${p}">${t.t('stats.lastDays', { days: p })}</a> `))}</p>
${await weeklyMailCard(app, reply)}`
      return reply.page(t.t('nav.statistics'), 'stats', body)
    },
  )

  routes.get(
    '/sites/:id/stats',
    { config: { operation: 'dashboard.sites.stats' }, schema: { hide: true, params: SiteParams, querystring: PeriodQuery } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const days = periodOf(request.query.days)
      return days ? render(app, reply, site, days) : refusePeriod(reply, site, request.query.days ?? '')
    },
  )

  routes.get(
    '/sites/:id/stats.csv',
    { config: { operation: 'dashboard.sites.stats.export' }, schema: { hide: true, params: SiteParams, querystring: CsvQuery } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const days = periodOf(request.query.days)
      if (!days) throw new errors.validationFailed(request.t.t('stats.periodProblem'))
      const table = TABLES.find((t) => t === (request.query.table ?? 'days'))
      if (!table) throw new errors.validationFailed(request.t.t('stats.tableProblem', { tables: TABLES.join(', ') }))
      const span = spanOf(days)
      const stats = await siteStats(app.db, site.id, span.from, span.to)
      const name = `${site.slug ?? site.id}-${table}-${span.from}-${span.to}.csv`
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(statsCsv(stats, table))
    },
  )
}

async function render(app: FastifyInstance, reply: FastifyReply, site: SiteRecord, days: Period) {
  const span = spanOf(days)
  const stats = await siteStats(app.db, site.id, span.from, span.to)
  const retention = planEntitlements(reply.request.person.plan).statsRetentionDays
  const { t } = reply.request
  const body = html`${STYLE}${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('nav.statistics')]])}
<p>${t.t('stats.site.intro')}</p>
${periodForm(t, site, String(days))}
${statsBody(t, site, days, stats, retention)}`
  return reply.page(t.t('stats.site.title', { name: site.name }), 'stats', body)
}

/** A period the page does not offer (an address typed or edited by hand): 400, the form with the problem beside the field. */
function refusePeriod(reply: FastifyReply, site: SiteRecord, typed: string) {
  reply.code(400)
  const { t } = reply.request
  const problem = t.t('stats.periodProblem')
  const body = html`${STYLE}${crumbs(t, [[site.name, `/app/sites/${site.id}`], [t.t('nav.statistics')]])}
${periodForm(t, site, typed, problem)}`
  return reply.page(t.t('stats.site.title', { name: site.name }), 'stats', body, { error: t.t('stats.noneShown', { problem }) })
}
