import type { Translator } from '../../domain/i18n/translator.ts'
import { html, type SafeHtml } from '../../infra/html.ts'

export interface DayFigures {
  date: string
  visitors: number
  pageviews: number
}

const WIDTH = 640
const HEIGHT = 240
const PAD = { left: 48, right: 12, top: 12, bottom: 32 }
export const PAGEVIEW_COLOUR = '#93c5fd'
export const VISITOR_COLOUR = '#1d4ed8'

/** The smallest of 1, 2, 5 × 10^k at or above `n` (at least 1), so the axis reads in round numbers. */
function roundCeiling(n: number): number {
  if (n <= 1) return 1
  const magnitude = 10 ** Math.floor(Math.log10(n))
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= n) return step * magnitude
  return 10 * magnitude
}

/**
 * Visitors and page views per day as a bar chart in SVG, drawn on the server (no script): one
 * pale bar of page views per day with the day's visitors in a dark bar over it, oldest left. It
 * reads without seeing it: its title names the span, its description the totals and the busiest
 * day, and the page offers every day as a table beside it.
 */
export function visitorsChart(t: Translator, days: readonly DayFigures[], title: string): SafeHtml {
  const count = (n: number) => t.number(n)
  const innerW = WIDTH - PAD.left - PAD.right
  const innerH = HEIGHT - PAD.top - PAD.bottom
  const top = roundCeiling(Math.max(0, ...days.map((d) => d.pageviews)))
  const band = innerW / Math.max(1, days.length)
  const bar = Math.max(1, band * 0.75)
  const round = (n: number) => Math.round(n * 10) / 10
  const y = (n: number) => PAD.top + innerH - (n * innerH) / top
  const x = (i: number) => PAD.left + i * band + (band - bar) / 2
  const visitors = days.reduce((sum, d) => sum + d.visitors, 0)
  const pageviews = days.reduce((sum, d) => sum + d.pageviews, 0)
  const busiest = days.reduce<DayFigures | undefined>((best, d) => (d.visitors > (best?.visitors ?? 0) ? d : best), undefined)
  const description =
    visitors === 0 && pageviews === 0
      ? t.t('stats.chart.none')
      : busiest
        ? t.t('stats.chart.busiest', {
            visitors: count(visitors),
            pageviews: count(pageviews),
            day: t.date(busiest.date),
            most: count(busiest.visitors),
          })
        : t.t('stats.chart.totals', { visitors: count(visitors), pageviews: count(pageviews) })
  const labelled = days.length <= 7 ? days.map((_, i) => i) : [0, Math.floor((days.length - 1) / 2), days.length - 1]
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="visits-title visits-desc" class="chart" style="max-width:${WIDTH}px;height:auto">
<title id="visits-title">${title}</title><desc id="visits-desc">${description}</desc>
${[0, top / 2, top].map((tick) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${round(y(tick))}" y2="${round(y(tick))}" stroke="#cbd5e1" stroke-width="1"/><text x="${PAD.left - 6}" y="${round(y(tick)) + 4}" text-anchor="end" font-size="12" fill="#475569">${count(tick)}</text>`)}
${days.map((d, i) => (d.pageviews === 0 ? '' : html`<rect x="${round(x(i))}" y="${round(y(d.pageviews))}" width="${round(bar)}" height="${round((d.pageviews * innerH) / top)}" fill="${PAGEVIEW_COLOUR}"/>`))}
${days.map((d, i) => (d.visitors === 0 ? '' : html`<rect x="${round(x(i))}" y="${round(y(d.visitors))}" width="${round(bar)}" height="${round((d.visitors * innerH) / top)}" fill="${VISITOR_COLOUR}"/>`))}
${labelled.map((i) => html`<text x="${round(x(i) + bar / 2)}" y="${HEIGHT - 10}" text-anchor="${i === 0 && days.length > 7 ? 'start' : i === days.length - 1 && days.length > 7 ? 'end' : 'middle'}" font-size="12" fill="#475569">${t.dayOfMonth(days[i]!.date)}</text>`)}
</svg>`
}
