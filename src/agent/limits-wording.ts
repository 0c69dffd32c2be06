import type { Locale } from '../domain/locales.ts'
import type { PlanExtras } from './entitlements.ts'

const unlimited: Record<Locale, string> = { de: 'unbegrenzt', en: 'unlimited', fr: 'illimité' }
const units: Record<Locale, { mb: string; gb: string; days: string; months: string }> = {
  de: { mb: 'MB', gb: 'GB', days: 'Tage', months: 'Monate' },
  en: { mb: 'MB', gb: 'GB', days: 'days', months: 'months' },
  fr: { mb: 'Mo', gb: 'Go', days: 'jours', months: 'mois' },
}

/** "250 MB", "25 GB" ("25 Go" in French); megabytes from a thousand on as gigabytes. */
export function storageText(mb: number | null, locale: Locale): string {
  if (mb === null) return unlimited[locale]
  return mb < 1000 ? `${mb} ${units[locale].mb}` : `${Math.round((mb / 1000) * 10) / 10} ${units[locale].gb}`
}

/** "30 days", "13 months". */
export function keptText(kept: PlanExtras['statsKept'], locale: Locale): string {
  return 'days' in kept ? `${kept.days} ${units[locale].days}` : `${kept.months} ${units[locale].months}`
}
