/**
 * Core Web Vitals as CrUX reports them, rated by the official thresholds (web.dev/articles/vitals):
 * good up to `good`, poor above `poor`, needs improvement between.
 */
export const VITALS = {
  lcp: { crux: ['largest_contentful_paint'], unit: 'ms', good: 2500, poor: 4000 },
  inp: { crux: ['interaction_to_next_paint'], unit: 'ms', good: 200, poor: 500 },
  cls: { crux: ['cumulative_layout_shift'], unit: 'unitless', good: 0.1, poor: 0.25 },
  fcp: { crux: ['first_contentful_paint'], unit: 'ms', good: 1800, poor: 3000 },
  ttfb: { crux: ['experimental_time_to_first_byte', 'time_to_first_byte'], unit: 'ms', good: 800, poor: 1800 },
} as const

export type VitalName = keyof typeof VITALS
export type Rating = 'good' | 'needs_improvement' | 'poor'

export interface Distribution {
  good: number
  needs_improvement: number
  poor: number
}

export interface VitalValue {
  p75: number
  unit: 'ms' | 'unitless'
  rating: Rating
  distribution: Distribution
  thresholds: { good: number; poor: number }
}

export interface CruxDate {
  year: number
  month: number
  day: number
}

export interface CruxHistogramBin {
  start: number | string
  end?: number | string
  density?: number
}

export interface CruxMetric {
  histogram?: CruxHistogramBin[]
  percentiles?: { p75?: number | string }
}

export interface CruxHistoryMetric {
  histogramTimeseries?: Array<{ start: number | string; end?: number | string; densities?: Array<number | string | null> }>
  percentilesTimeseries?: { p75s?: Array<number | string | null> }
}

export function rate(name: VitalName, p75: number): Rating {
  const { good, poor } = VITALS[name]
  return p75 <= good ? 'good' : p75 <= poor ? 'needs_improvement' : 'poor'
}

export function isoDate(date: CruxDate | undefined): string | null {
  if (!date) return null
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`
}

function toNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) ? n : null
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000

export function pickMetric<T>(metrics: Record<string, T> | undefined, name: VitalName): T | undefined {
  for (const key of VITALS[name].crux) if (metrics?.[key]) return metrics[key]
  return undefined
}

/** CrUX's three bins are exactly the good / needs-improvement / poor ranges of each vital. */
export function vitalValue(name: VitalName, metric: CruxMetric | undefined): VitalValue | null {
  const p75 = toNumber(metric?.percentiles?.p75)
  if (!metric || p75 === null) return null
  const bins = metric.histogram ?? []
  const density = (i: number) => round4(bins[i]?.density ?? 0)
  const { unit, good, poor } = VITALS[name]
  return {
    p75,
    unit,
    rating: rate(name, p75),
    distribution: { good: density(0), needs_improvement: density(1), poor: density(2) },
    thresholds: { good, poor },
  }
}

export interface VitalSeries {
  unit: 'ms' | 'unitless'
  p75: Array<number | null>
  rating: Array<Rating | null>
  good: Array<number | null>
  needs_improvement: Array<number | null>
  poor: Array<number | null>
}

export function vitalSeries(name: VitalName, metric: CruxHistoryMetric | undefined, length: number): VitalSeries | null {
  if (!metric) return null
  const p75 = Array.from({ length }, (_, i) => toNumber(metric.percentilesTimeseries?.p75s?.[i]))
  const bin = (b: number) =>
    Array.from({ length }, (_, i) => {
      const value = toNumber(metric.histogramTimeseries?.[b]?.densities?.[i])
      return value === null ? null : round4(value)
    })
  return {
    unit: VITALS[name].unit,
    p75,
    rating: p75.map((v) => (v === null ? null : rate(name, v))),
    good: bin(0),
    needs_improvement: bin(1),
    poor: bin(2),
  }
}

export const ATTRIBUTION = {
  source: 'Chrome UX Report (CrUX)',
  license: 'CC-BY-4.0',
  license_url: 'https://creativecommons.org/licenses/by/4.0/',
  text: 'Field data from the Chrome UX Report by Google, licensed under CC BY 4.0.',
} as const
