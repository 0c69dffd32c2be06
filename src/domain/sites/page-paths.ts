import type { Locale } from '../locales.ts'

/**
 * A page's path made from its title (DESIGN.md 15): transliterated as the language writes it
 * ("Über uns" → /ueber-uns in German, "À propos" → /a-propos), anything else between words a
 * hyphen, and unique among the site's pages of that language with -2, -3, … A title with no
 * letter or digit left becomes /page.
 */

/** A page path: "/" or lower-case segments of letters, digits, "-", "_" and "." (never "." or ".." alone), no trailing slash. */
export const PAGE_PATH_PATTERN = '^/(?:[a-z0-9][a-z0-9._-]*(?:/[a-z0-9][a-z0-9._-]*)*)?$'

const GERMAN: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' }
const MAX = 80

export function pathFromTitle(title: string, locale: Locale): string {
  const spelled = locale === 'de' ? title.replace(/[äöüÄÖÜ]/g, (c) => GERMAN[c]!) : title
  const base = spelled
    .replace(/ß/g, 'ss')
    .replace(/[œŒ]/g, 'oe')
    .replace(/[æÆ]/g, 'ae')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX)
    .replace(/-+$/, '')
  return base ? `/${base}` : '/page'
}

/** The first of path, path-2, path-3, … that `taken` does not hold. */
export function uniquePath(path: string, taken: ReadonlySet<string>): string {
  if (!taken.has(path)) return path
  for (let n = 2; ; n++) if (!taken.has(`${path}-${n}`)) return `${path}-${n}`
}
