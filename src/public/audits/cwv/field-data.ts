import type { CruxClient, FormFactor } from './crux.ts'
import {
  ATTRIBUTION,
  isoDate,
  pickMetric,
  VITALS,
  vitalSeries,
  vitalValue,
  type VitalName,
  type VitalSeries,
  type VitalValue,
} from './metrics.ts'

const NAMES = Object.keys(VITALS) as VitalName[]
const FORM_FACTORS: Array<[key: 'phone' | 'desktop', crux: FormFactor]> = [
  ['phone', 'PHONE'],
  ['desktop', 'DESKTOP'],
]

export type Period = { first_date: string | null; last_date: string | null }

export interface LookupData {
  domain: string
  origin: string
  status: 'ok' | 'insufficient_data'
  message?: string
  collection_period: Period | null
  form_factors: Record<'phone' | 'desktop', { metrics: Record<VitalName, VitalValue | null> } | null>
  attribution: typeof ATTRIBUTION
}

export interface HistoryData {
  domain: string
  origin: string
  status: 'ok' | 'insufficient_data'
  message?: string
  form_factors: Record<'phone' | 'desktop', { collection_periods: Period[]; metrics: Record<VitalName, VitalSeries | null> } | null>
  attribution: typeof ATTRIBUTION
}

export const NOT_ENOUGH_DATA =
  'Not enough field data: the Chrome UX Report has too few visits from Chrome users to this origin to publish Core Web Vitals.'

/** records:queryRecord for phone and desktop (two queries). */
export async function lookupFieldData(crux: CruxClient, domain: string): Promise<LookupData> {
  const origin = `https://${domain}`
  const records = await Promise.all(FORM_FACTORS.map(([, f]) => crux.queryRecord(origin, f)))
  const form_factors = {} as LookupData['form_factors']
  let period: Period | null = null
  FORM_FACTORS.forEach(([key], i) => {
    const record = records[i]
    if (!record) {
      form_factors[key] = null
      return
    }
    const metrics = {} as Record<VitalName, VitalValue | null>
    for (const name of NAMES) metrics[name] = vitalValue(name, pickMetric(record.metrics, name))
    form_factors[key] = { metrics }
    period ??= record.collectionPeriod
      ? { first_date: isoDate(record.collectionPeriod.firstDate), last_date: isoDate(record.collectionPeriod.lastDate) }
      : null
  })
  const any = records.some(Boolean)
  return {
    domain,
    origin,
    status: any ? 'ok' : 'insufficient_data',
    ...(any ? {} : { message: NOT_ENOUGH_DATA }),
    collection_period: period,
    form_factors,
    attribution: ATTRIBUTION,
  }
}

/** records:queryHistoryRecord for phone and desktop: the weekly series (two queries). */
export async function historyFieldData(crux: CruxClient, domain: string): Promise<HistoryData> {
  const origin = `https://${domain}`
  const records = await Promise.all(FORM_FACTORS.map(([, f]) => crux.queryHistoryRecord(origin, f)))
  const form_factors = {} as HistoryData['form_factors']
  FORM_FACTORS.forEach(([key], i) => {
    const record = records[i]
    if (!record) {
      form_factors[key] = null
      return
    }
    const periods = (record.collectionPeriods ?? []).map((p) => ({ first_date: isoDate(p.firstDate), last_date: isoDate(p.lastDate) }))
    const metrics = {} as Record<VitalName, VitalSeries | null>
    for (const name of NAMES) metrics[name] = vitalSeries(name, pickMetric(record.metrics, name), periods.length)
    form_factors[key] = { collection_periods: periods, metrics }
  })
  const any = records.some(Boolean)
  return {
    domain,
    origin,
    status: any ? 'ok' : 'insufficient_data',
    ...(any ? {} : { message: NOT_ENOUGH_DATA }),
    form_factors,
    attribution: ATTRIBUTION,
  }
}

/** CrUX publishes its daily update around 04:00 UTC; answers are good until the next one. */
export function nextDailyUpdate(now: Date): Date {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 4, 0, 0))
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1)
  return next
}
