import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'
import type { SiteRecord } from '../../domain/sites/sites.ts'
import { accountSiteTotals, addDays, conversionRate, siteStats, type SiteStatsDetail } from '../../domain/stats/report.ts'
import { retentionText } from '../../domain/stats/retention.ts'
import { errors } from '../../errors.ts'
import { html, raw, type SafeHtml } from '../../infra/html.ts'
import { csvTable } from '../csv.ts'
import { dataTable } from '../layout.ts'
import { crumbs, ownSite, SiteParams } from './editor/context.ts'
import { count, PAGEVIEW_COLOUR, VISITOR_COLOUR, visitorsChart } from './stats-chart.ts'
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

const PERIOD_PROBLEM = 'Choose the last 7, 30 or 90 days.'

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

const DEVICE_WORDS: Record<string, string> = { desktop: 'Computer', mobile: 'Phone', tablet: 'Tablet' }
const CAMPAIGN_WORDS = { utm_source: 'Source', utm_medium: 'Medium', utm_campaign: 'Campaign' } as const

const share = (part: number, whole: number) => (whole === 0 ? '–' : `${Math.round((part / whole) * 100)}%`)

// The page's own layout: the totals side by side, the chart's legend, a CSV link under each list.
const STYLE = raw(`<style>.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0}
.figures div{background:#f1f5f9;border-radius:6px;padding:.5rem .75rem}.figures dt{font-size:.9rem;color:#475569}.figures dd{margin:0;font-size:1.5rem;font-weight:700}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;margin-right:.35rem;vertical-align:-.1rem}
.period{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}.period .field{margin:0;min-width:12rem}</style>`)

/** A list of the page: its first rows as a table (or a line saying there is nothing), and its CSV download. */
function listSection(
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
${rows.length > SHOWN ? html`<p class="muted">The ${SHOWN} first of ${rows.length} are shown; the CSV file has them all.</p>` : ''}
${rows.length === 0 ? '' : html`<p><a href="${csvHref}" download>Download ${title.toLowerCase()} as CSV<span class="sr-only"> (a spreadsheet file)</span></a></p>`}
</section>`
}

function periodForm(site: SiteRecord, chosen: string, problem?: string): SafeHtml {
  return html`<form method="get" action="/app/sites/${site.id}/stats" class="period">
<div class="field${problem ? ' invalid' : ''}"><label for="days">Period</label>
${problem ? html`<p class="field-error" id="days-error"><span class="sr-only">Error: </span>${problem}</p>` : ''}
<select id="days" name="days"${problem ? html` aria-invalid="true" aria-describedby="days-error"` : ''}>${PERIODS.map((p) => html`<option value="${p}"${String(p) === chosen ? ' selected' : ''}>Last ${p} days</option>`)}</select></div>
<button type="submit" class="secondary">Show</button>
</form>`
}

function statsBody(site: SiteRecord, days: Period, stats: SiteStatsDetail, retentionDays: number): SafeHtml {
  const csv = (table: TableName) => `/app/sites/${site.id}/stats.csv?days=${days}&table=${table}`
  const { totals } = stats
  const rate = conversionRate(totals)
  const keptFrom = addDays(stats.to, -(retentionDays - 1))
  const deviceShare = (n: number) =>
    share(
      n,
      stats.devices.reduce((sum, d) => sum + d.visitors, 0),
    )
  return html`<p class="muted">From ${stats.from} to ${stats.to} (UTC days). Visitors are counted per day: someone who comes on two days counts twice.</p>
${keptFrom > stats.from ? html`<p class="notice" role="note">Your plan keeps statistics for ${retentionText(retentionDays)}: days before ${keptFrom} show nothing. <a href="/app/billing">Plans that keep them longer</a>.</p>` : ''}
<section class="card" aria-labelledby="totals-h"><h2 id="totals-h">In all</h2>
<dl class="figures"><div><dt>Visitors</dt><dd>${count(totals.visitors)}</dd></div><div><dt>Page views</dt><dd>${count(totals.pageviews)}</dd></div><div><dt>Messages and leads</dt><dd>${count(totals.conversions)}</dd></div><div><dt>Conversion rate</dt><dd>${rate === null ? '–' : `${rate}%`}</dd></div></dl>
<p class="muted">Messages and leads are the contact-form messages and the sales assistant's leads; the conversion rate is how many of them came per hundred visitors.</p>
</section>
<section class="card" aria-labelledby="days-h"><h2 id="days-h">Visitors per day</h2>
<ul class="legend" aria-hidden="true"><li><span class="swatch" style="background:${VISITOR_COLOUR}"></span>Visitors</li><li><span class="swatch" style="background:${PAGEVIEW_COLOUR}"></span>Page views</li></ul>
${visitorsChart(stats.days, `Visitors and page views per day, last ${days} days`)}
<details><summary>Every day as a table</summary>
${dataTable(
  'Every day: visitors, page views, messages',
  ['Day', 'Visitors', 'Page views', 'Messages and leads'],
  [...stats.days.keys()]
    .reverse()
    .map((i) => [stats.days[i]!.date, stats.days[i]!.visitors, stats.days[i]!.pageviews, stats.conversionsByDay[i] ?? 0]),
)}
</details>
<p><a href="${csv('days')}" download>Download visitors per day as CSV<span class="sr-only"> (a spreadsheet file)</span></a></p>
</section>
${listSection(
  'pages',
  'Top pages',
  'Pages by views',
  csv('pages'),
  ['Page', 'Page views', 'Visitors'],
  stats.pages.map((p) => [html`<code class="long">${p.path}</code>`, p.pageviews, p.visitors]),
  'No page was viewed on these days.',
)}
${listSection(
  'referrers',
  'Referrers',
  'Referrers by visitors',
  csv('referrers'),
  ['Came from', 'Visitors'],
  stats.referrers.map((r) => [r.host, r.visitors]),
  'No visitor came from another site on these days (visitors who typed the address or used a bookmark are not listed here).',
)}
${listSection(
  'devices',
  'Devices',
  'Devices by visitors',
  csv('devices'),
  ['Device', 'Visitors', 'Share'],
  stats.devices.map((d) => [DEVICE_WORDS[d.kind] ?? d.kind, d.visitors, deviceShare(d.visitors)]),
  'No visits on these days.',
)}
${listSection(
  'browsers',
  'Browsers',
  'Browsers by visitors',
  csv('browsers'),
  ['Browser', 'Visitors'],
  stats.browsers.map((b) => [b.name, b.visitors]),
  'No visits on these days.',
)}
${listSection(
  'campaigns',
  'Campaigns',
  'Campaign links by visitors',
  csv('campaigns'),
  ['Kind', 'Value', 'Visitors', 'Page views'],
  stats.campaigns.map((c) => [CAMPAIGN_WORDS[c.kind], c.value, c.visitors, c.pageviews]),
  'No visitor came by a link with utm_source, utm_medium or utm_campaign on these days.',
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
      const days = periodOf(request.query.days)
      if (!days) throw new errors.validationFailed(PERIOD_PROBLEM)
      const span = spanOf(days)
      const sites = await accountSiteTotals(app.db, request.person.accountId, span.from, span.to)
      const body = html`<p>Visitors of your sites in the last ${days} days, counted without cookies (from ${span.from} to ${span.to}, UTC). Open a site for its pages, referrers and devices.</p>
${
  sites.length === 0
    ? html`<p>No sites yet.</p>`
    : dataTable(
        'Your sites',
        ['Site', 'Visitors', 'Page views', 'Messages and leads'],
        sites.map((s) => [html`<a href="/app/sites/${s.siteId}/stats?days=${days}">${s.name}</a>`, s.visitors, s.pageviews, s.conversions]),
      )
}
<p>${PERIODS.map((p) => (p === days ? html`<strong>Last ${p} days</strong> ` : html`<a href="/app/stats?days=${p}">Last ${p} days</a> `))}</p>
${await weeklyMailCard(app, reply)}`
      return reply.page('Statistics', 'stats', body)
    },
  )

  routes.get(
    '/sites/:id/stats',
    { config: { operation: 'dashboard.sites.stats' }, schema: { hide: true, params: SiteParams, querystring: PeriodQuery } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      const days = periodOf(request.query.days)
      return days ? render(app, reply, site, days) : refusePeriod(reply, site, request.query.days ?? '')
    },
  )

  routes.get(
    '/sites/:id/stats.csv',
    { config: { operation: 'dashboard.sites.stats.export' }, schema: { hide: true, params: SiteParams, querystring: CsvQuery } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id)
      const days = periodOf(request.query.days)
      if (!days) throw new errors.validationFailed(PERIOD_PROBLEM)
      const table = TABLES.find((t) => t === (request.query.table ?? 'days'))
      if (!table) throw new errors.validationFailed(`Choose one of the lists: ${TABLES.join(', ')}.`)
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
  const body = html`${STYLE}${crumbs(reply.request.t, [[site.name, `/app/sites/${site.id}`], [reply.request.t.t('nav.statistics')]])}
<p>Counted by the server that serves your site, without cookies or scripts, so your visitors are asked for no consent. Visits of bots and of your own previews are left out.</p>
${periodForm(site, String(days))}
${statsBody(site, days, stats, retention)}`
  return reply.page(`Statistics of ${site.name}`, 'stats', body)
}

/** A period the page does not offer (an address typed or edited by hand): 400, the form with the problem beside the field. */
function refusePeriod(reply: FastifyReply, site: SiteRecord, typed: string) {
  reply.code(400)
  const body = html`${STYLE}${crumbs(reply.request.t, [[site.name, `/app/sites/${site.id}`], [reply.request.t.t('nav.statistics')]])}
${periodForm(site, typed, PERIOD_PROBLEM)}`
  return reply.page(`Statistics of ${site.name}`, 'stats', body, { error: `No statistics shown: ${PERIOD_PROBLEM}` })
}
