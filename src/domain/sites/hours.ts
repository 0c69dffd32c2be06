import type { BlockContent, Weekday } from './block-content.ts'
import { WEEKDAYS } from './block-content.ts'
import type { Locale } from '../locales.ts'

/**
 * Opening hours, menu prices and addresses as pages say them: day names and prices in the page's
 * locale (Intl), the week in short for the footer, schema.org's openingHoursSpecification, and
 * the OpenStreetMap search link of an address. Pure functions shared by the page, its Markdown
 * alternate and the JSON-LD.
 */

export type OpeningHours = BlockContent<'opening_hours'>
export type Menu = BlockContent<'menu'>
export type ContactDetails = BlockContent<'contact_details'>

// 2024-01-01 was a Monday: the reference week for the day names.
const dayNames = new Map<string, string[]>()
function names(locale: Locale, width: 'long' | 'short'): string[] {
  const key = `${locale}-${width}`
  let list = dayNames.get(key)
  if (!list) {
    const format = new Intl.DateTimeFormat(locale, { weekday: width, timeZone: 'UTC' })
    list = WEEKDAYS.map((_, i) => format.format(new Date(Date.UTC(2024, 0, 1 + i))))
    list = list.map((n) => n.charAt(0).toLocaleUpperCase(locale) + n.slice(1))
    dayNames.set(key, list)
  }
  return list
}

export function dayName(day: Weekday, locale: Locale, width: 'long' | 'short' = 'long'): string {
  return names(locale, width)[WEEKDAYS.indexOf(day)]!
}

/** A time as the locale writes it: 08:00 in German and French, 8:00 AM in English. */
export function timeText(time: string, locale: Locale): string {
  if (locale !== 'en') return time
  const [h, m] = time.split(':').map(Number) as [number, number]
  const hour = h % 12 === 0 ? 12 : h % 12
  return `${hour}:${String(m).padStart(2, '0')} ${h < 12 || h === 24 ? 'AM' : 'PM'}`
}

function rangeText(opens: string, closes: string, locale: Locale): string {
  return `${timeText(opens, locale)}–${timeText(closes, locale)}`
}

/** Each day of the week with its ranges in order (none: closed). */
export function weekOf(hours: OpeningHours): Array<{ day: Weekday; ranges: Array<{ opens: string; closes: string }> }> {
  return WEEKDAYS.map((day) => ({
    day,
    ranges: hours.items.filter((i) => i.day === day).sort((a, b) => a.opens.localeCompare(b.opens)),
  }))
}

const CLOSED: Record<Locale, string> = { en: 'Closed', de: 'Geschlossen', fr: 'Fermé' }
export function closedWord(locale: Locale): string {
  return CLOSED[locale]
}

/** One line per day: "Monday: 7:00 AM–1:00 PM, 2:00 PM–6:00 PM". */
export function dayLines(hours: OpeningHours, locale: Locale): Array<{ day: string; text: string }> {
  return weekOf(hours).map(({ day, ranges }) => ({
    day: dayName(day, locale),
    text: ranges.length ? ranges.map((r) => rangeText(r.opens, r.closes, locale)).join(', ') : CLOSED[locale],
  }))
}

/** The week in short, days with the same hours joined: "Mon–Fri 7:00–18:00 · Sat 7:00–12:00". Closed days left out. */
export function hoursInShort(hours: OpeningHours, locale: Locale): string {
  const week = weekOf(hours).map((d) => ({ day: d.day, key: d.ranges.map((r) => rangeText(r.opens, r.closes, locale)).join(', ') }))
  const parts: string[] = []
  for (let i = 0; i < week.length; ) {
    let j = i
    while (j + 1 < week.length && week[j + 1]!.key === week[i]!.key) j++
    if (week[i]!.key) {
      const from = dayName(week[i]!.day, locale, 'short')
      const days = j === i ? from : `${from}–${dayName(week[j]!.day, locale, 'short')}`
      parts.push(`${days} ${week[i]!.key}`)
    }
    i = j + 1
  }
  return parts.join(' · ')
}

const SCHEMA_DAY = (day: Weekday) => `https://schema.org/${day.charAt(0).toUpperCase()}${day.slice(1)}`

/** schema.org openingHoursSpecification: one entry per range (days with the same range joined), then the dated exceptions. */
export function openingHoursSpecification(hours: OpeningHours): Array<Record<string, unknown>> {
  const byRange = new Map<string, Weekday[]>()
  for (const item of hours.items) {
    const key = `${item.opens}-${item.closes}`
    byRange.set(key, [...(byRange.get(key) ?? []), item.day])
  }
  const weekly = [...byRange].map(([key, days]) => {
    const [opens, closes] = key.split('-') as [string, string]
    const ordered = WEEKDAYS.filter((d) => days.includes(d))
    return {
      '@type': 'OpeningHoursSpecification',
      dayOfWeek: ordered.map(SCHEMA_DAY),
      opens,
      closes: closes === '24:00' ? '23:59' : closes,
    }
  })
  const dated = (hours.exceptions ?? []).map((e) => ({
    '@type': 'OpeningHoursSpecification',
    validFrom: e.date,
    validThrough: e.date,
    // schema.org says a day closed as opening and closing at 00:00.
    ...(e.closed || !e.opens || !e.closes ? { opens: '00:00', closes: '00:00' } : { opens: e.opens, closes: e.closes }),
  }))
  return [...weekly, ...dated]
}

/** A dated exception in words: "24/12/2026: Closed (Christmas Eve)". */
export function exceptionText(e: NonNullable<OpeningHours['exceptions']>[number], locale: Locale): { date: string; text: string } {
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${e.date}T00:00:00Z`))
  const text = e.closed || !e.opens || !e.closes ? CLOSED[locale] : rangeText(e.opens, e.closes, locale)
  return { date, text: e.note ? `${text} (${e.note})` : text }
}

/** A price as the page's locale writes it: 3,50 € in German and French, €3.50 in English. */
export function priceText(price: number, currency: string, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(price)
}

/** The menu's items grouped by their section, in order (consecutive items with the same section). */
export function menuSections(menu: Menu): Array<{ title: string | undefined; items: Menu['items'] }> {
  const sections: Array<{ title: string | undefined; items: Menu['items'] }> = []
  for (const item of menu.items) {
    const last = sections.at(-1)
    if (last && last.title === item.section) last.items.push(item)
    else sections.push({ title: item.section, items: [item] })
  }
  return sections
}

/** An address on one line, as people write it. */
export function addressLine(address: NonNullable<ContactDetails['address']>): string {
  return [address.street, [address.postal_code, address.locality].filter(Boolean).join(' '), address.country].filter(Boolean).join(', ')
}

/** The address searched on OpenStreetMap: a link, no embedded map (nothing loads from a third party). */
export function mapLink(address: NonNullable<ContactDetails['address']>): string {
  return `https://www.openstreetmap.org/search?query=${encodeURIComponent(addressLine(address))}`
}
