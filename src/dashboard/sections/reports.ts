import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { getAccountSite } from '../../domain/sites/sites.ts'
import type { AuditReport } from '../../domain/seo-audit/engine.ts'
import { findingsByPage, type PageFindings } from '../../domain/seo-reports/page-findings.ts'
import { scoreHistory, type AuditRow } from '../../domain/seo-reports/site-audits.ts'
import { planEntitlements } from '../../domain/accounts/entitlements.ts'
import { errors } from '../../errors.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { dataTable } from '../layout.ts'
import { translator, type Translator } from '../../domain/i18n/translator.ts'
import { effortKey } from '../../domain/seo-reports/reports.ts'
import { shownDomain } from './editor/context.ts'

export interface ScorePoint {
  at: Date
  score: number
}

const WIDTH = 640
const HEIGHT = 220
const PAD = { left: 40, right: 16, top: 16, bottom: 36 }

/**
 * A site's score history as a small line chart in SVG, drawn on the server (no script): one dot
 * per report, oldest left, the score axis 0 to 100. It carries its own title and a description
 * that names every point, so it reads without seeing it; the page's table says the same.
 */
export function scoreChart(points: readonly ScorePoint[], title: string, t: Translator = translator('en')): SafeHtml {
  const innerW = WIDTH - PAD.left - PAD.right
  const innerH = HEIGHT - PAD.top - PAD.bottom
  const x = (i: number) => PAD.left + (points.length === 1 ? innerW / 2 : (i * innerW) / (points.length - 1))
  const y = (score: number) => PAD.top + innerH - (Math.max(0, Math.min(100, score)) * innerH) / 100
  const round = (n: number) => Math.round(n * 10) / 10
  const day = (at: Date) => at.toISOString().slice(0, 10)
  const description = points.length === 0 ? t.t('reports.none') : points.map((p) => `${t.date(p.at)}: ${p.score}`).join('; ')
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${round(x(i))} ${round(y(p.score))}`).join(' ')
  const labelled = points.length <= 8 ? points.map((_, i) => i) : [0, points.length - 1]
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="chart-title chart-desc" class="score-chart" style="max-width:${WIDTH}px;height:auto">
<title id="chart-title">${title}</title><desc id="chart-desc">${description}</desc>
${[0, 50, 100].map((tick) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${round(y(tick))}" y2="${round(y(tick))}" stroke="#cbd5e1" stroke-width="1"/><text x="${PAD.left - 6}" y="${round(y(tick)) + 4}" text-anchor="end" font-size="12" fill="#475569">${tick}</text>`)}
${points.length > 1 ? html`<path d="${line}" fill="none" stroke="#1d4ed8" stroke-width="2"/>` : ''}
${points.map((p, i) => html`<circle cx="${round(x(i))}" cy="${round(y(p.score))}" r="4" fill="#1d4ed8"/>`)}
${labelled.map((i) => html`<text x="${round(x(i))}" y="${HEIGHT - 12}" text-anchor="middle" font-size="12" fill="#475569">${day(points[i]!.at)}</text>`)}
</svg>`
}

const Params = Type.Object({ id: Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false })

const changeOf = (rows: readonly AuditRow[], i: number): string => {
  const before = rows[i - 1]?.score
  const now = rows[i]?.score
  if (before === undefined || before === null || now === null || now === undefined) return '–'
  const delta = now - before
  return delta === 0 ? '±0' : `${delta > 0 ? '+' : '−'}${Math.abs(delta)}`
}

/** The premium audit's pages, each with its findings (the latest report of a site with premium reports). */
function pageFindings(t: Translator, report: AuditReport, pages: PageFindings[]): SafeHtml {
  return html`<section class="card" aria-labelledby="pages-h"><h2 id="pages-h">${t.t('reports.byPage')}</h2>
<p>${t.t('reports.premium', { checked: report.pages_checked, found: pages.length })}</p>
${
  pages.length === 0
    ? ''
    : dataTable(
        t.t('reports.byPage'),
        [t.t('reports.col.page'), t.t('reports.col.findings')],
        pages.map(({ page, findings }) => [
          html`<code class="long">${page}</code>`,
          html`<ul>${findings.map((f) => html`<li><strong>${f.severity}</strong>: ${f.message}${f.evidence ? html` <span class="muted">(${f.evidence})</span>` : ''}</li>`)}</ul>`,
        ]),
      )
}</section>`
}

/** GET /app/sites/:id/reports: the site's SEO report history as a chart and a table, the latest quick wins, and with premium reports the findings of every page. */
export default async function reportsSection(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id/reports',
    { config: { operation: 'dashboard.sites.reports' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const t = request.t
      const site = await getAccountSite(app.db, request.person.accountId, request.params.id)
      if (!site) throw new errors.notFound(t.t('reports.error.noSite'))
      const rows = await scoreHistory(app.db, site.id)
      const latest = rows.at(-1)
      const report = latest?.report_id
        ? await app.db.selectFrom('audit_reports').select('report').where('id', '=', latest.report_id).executeTakeFirst()
        : undefined
      const stored = report?.report as AuditReport | undefined
      const wins = (stored?.quick_wins ?? []).slice(0, 3)
      const pages = findingsByPage(stored)
      const cadence = planEntitlements(request.person.plan).seoReports
      const schedule =
        cadence === 'none'
          ? t.rich('reports.schedule.none', {}, { link: (words) => html`<a href="/app">${words}</a>` })
          : t.t('reports.schedule', { cadence })
      const points = rows.map((r) => ({ at: r.finished_at ?? r.created_at, score: r.score ?? 0 }))
      const body = html`<nav class="crumbs" aria-label="${t.t('reports.crumbs')}"><ol><li><a href="/app/sites">${t.t('nav.sites')}</a></li><li><a href="/app/sites/${site.id}">${site.name}</a></li><li aria-current="page">${t.t('reports.crumb')}</li></ol></nav>
<p>${schedule}</p>
<section class="card" aria-labelledby="history-h"><h2 id="history-h">${t.t('reports.history')}</h2>
${rows.length === 0 ? html`<p>${t.t('reports.none.text')}</p>` : scoreChart(points, t.t('reports.chart', { name: site.name }), t)}
</section>
${
  latest
    ? html`<section class="card" aria-labelledby="wins-h"><h2 id="wins-h">${t.t('reports.wins')}</h2>
${wins.length === 0 ? html`<p>${t.t('reports.wins.none')}</p>` : html`<ol>${wins.map((w) => html`<li>${w.fix} <span class="muted">${t.t('reports.win', { gain: w.gain, effort: t.t(effortKey(w.effort)) })}</span></li>`)}</ol>`}</section>`
    : ''
}
${stored?.premium ? pageFindings(t, stored, pages) : ''}
${
  rows.length === 0
    ? ''
    : dataTable(
        t.t('reports.table'),
        [
          t.t('reports.col.finished'),
          t.t('reports.col.kind'),
          t.t('reports.col.address'),
          t.t('reports.col.score'),
          t.t('reports.col.change'),
        ],
        [...rows.keys()].reverse().map((i) => {
          const r = rows[i]!
          return [
            r.finished_at ? t.dateTime(r.finished_at) : t.t('common.none'),
            t.t('reports.kind', { trigger: r.trigger }),
            shownDomain(r.domain),
            r.score === null ? t.t('common.none') : t.t('reports.score', { score: r.score }),
            changeOf(rows, i),
          ]
        }),
      )
}`
      return reply.page(t.t('reports.title', { name: site.name }), 'sites', body)
    },
  )
}
