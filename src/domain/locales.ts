/** The locales the service speaks (INTERFACE.md 2.1): the one list every room uses. */
export const LOCALES = ['de', 'en', 'fr'] as const

export type Locale = (typeof LOCALES)[number]

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value)
}
