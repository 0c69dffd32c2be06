import { IntlMessageFormat } from 'intl-messageformat'
import { html, type SafeHtml } from '../../infra/html.ts'
import { isLocale, LOCALES, type Locale } from '../locales.ts'
import { de } from './catalogues/de.ts'
import { en, type MessageKey } from './catalogues/en.ts'
import { fr } from './catalogues/fr.ts'

export type { MessageKey }

/** One catalogue per language (ICU message format): code names a key, never a sentence. */
export const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { de, en, fr }

type Value = string | number | Date
type Values = Record<string, Value>
/** Markup around a part of a message: `<link>the billing page</link>` with `link: (words) => html\`<a …>${words}</a>\``. */
type Tags = Record<string, (words: SafeHtml) => SafeHtml>

/** Everything a page or a mail needs to speak one language: messages, dates, numbers and prices. */
export interface Translator {
  readonly lang: Locale
  /** A message as plain text (escaped by the html template where it lands). */
  t(key: MessageKey, values?: Values): string
  /** A message with markup around some of its words; the words and values are escaped. */
  rich(key: MessageKey, values: Values, tags: Tags): SafeHtml
  date(value: Date | string): string
  /** A day of the year, short, for labels beside others of the same year ("Nov 21", "21. Nov.", "21 nov."). */
  dayOfMonth(value: Date | string): string
  dateTime(value: Date | string): string
  number(value: number): string
  price(cents: number, currency?: string): string
}

const compiled = new Map<string, IntlMessageFormat>()

function message(lang: Locale, key: MessageKey): IntlMessageFormat {
  const id = `${lang}\u0000${key}`
  let format = compiled.get(id)
  if (!format) compiled.set(id, (format = new IntlMessageFormat(CATALOGUES[lang][key], lang)))
  return format
}

const formats = new Map<
  Locale,
  { date: Intl.DateTimeFormat; dayOfMonth: Intl.DateTimeFormat; dateTime: Intl.DateTimeFormat; number: Intl.NumberFormat }
>()

function formatsOf(lang: Locale) {
  let found = formats.get(lang)
  if (!found) {
    found = {
      date: new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }),
      dayOfMonth: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }),
      dateTime: new Intl.DateTimeFormat(lang, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }),
      number: new Intl.NumberFormat(lang),
    }
    formats.set(lang, found)
  }
  return found
}

const translators = new Map<Locale, Translator>()

export function translator(lang: Locale): Translator {
  let found = translators.get(lang)
  if (found) return found
  const f = formatsOf(lang)
  found = {
    lang,
    t: (key, values) => String(message(lang, key).format(values)),
    rich(key, values, tags) {
      const wrapped = Object.fromEntries(
        Object.entries(tags).map(([tag, wrap]) => [tag, (chunks: unknown[]) => wrap(html`${chunks.map(part)}`)]),
      )
      const parts = message(lang, key).format<SafeHtml>({ ...values, ...wrapped })
      return html`${(Array.isArray(parts) ? parts : [parts]).map(part)}`
    },
    date: (value) => f.date.format(new Date(value)),
    dayOfMonth: (value) => f.dayOfMonth.format(new Date(value)),
    dateTime: (value) => f.dateTime.format(new Date(value)),
    number: (value) => f.number.format(value),
    price: (cents, currency = 'EUR') => new Intl.NumberFormat(lang, { style: 'currency', currency }).format(cents / 100),
  }
  translators.set(lang, found)
  return found
}

function part(value: unknown): SafeHtml | string {
  return typeof value === 'object' && value !== null && 'value' in value ? (value as SafeHtml) : String(value)
}

/**
 * The best of our languages for an Accept-Language header (RFC 9110 12.5.4): by quality, a
 * regional tag ("fr-CH") counting for its language; undefined when none of ours is asked for.
 */
export function negotiateLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined
  const asked = header
    .slice(0, 500)
    .split(',')
    .map((item, index) => {
      const [tag = '', ...params] = item.trim().split(';')
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean)
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q), index }
    })
    .filter((item) => item.q > 0 && isLocale(item.lang))
    .sort((a, b) => b.q - a.q || a.index - b.index)
  return asked[0]?.lang as Locale | undefined
}

/** The cookie that keeps the language chosen with the switch in this browser (before signing in). */
export const LANGUAGE_COOKIE = 'wps_lang'

/** The language of a page or a mail for a person: their setting, else this browser's choice, else Accept-Language, else English. */
export function chooseLanguage(choice: { setting?: string | null; cookie?: string; acceptLanguage?: string }): Locale {
  if (isLocale(choice.setting)) return choice.setting
  if (isLocale(choice.cookie)) return choice.cookie
  return negotiateLanguage(choice.acceptLanguage) ?? 'en'
}

/** The languages of the switch, each named in itself. */
export const LANGUAGE_NAMES: Record<Locale, string> = { de: 'Deutsch', en: 'English', fr: 'Français' }

export { LOCALES as LANGUAGES }
