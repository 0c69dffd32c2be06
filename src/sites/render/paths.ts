import { isLocale, type Locale } from '../../domain/locales.ts'

/**
 * URL layout of a release: the default locale at the root ('/', '/about'), every other locale
 * under its code ('/de/', '/de/about'). Links inside a page are relative, so one release works
 * both on its own domain and under the preview prefix /s/{site_id}/.
 */
export function pageUrlPath(locale: Locale, path: string, defaultLocale: Locale): string {
  const inLocale = path === '/' ? '/' : path
  return locale === defaultLocale ? inLocale : `/${locale}${inLocale}`
}

/**
 * Where a consent's privacy link points in this release's layout: the default wording names
 * '/{locale}/privacy', which lives at '/privacy' for the default locale. Any other link is kept.
 */
export function consentLinkInLayout(url: string, defaultLocale: Locale): string {
  const match = /^\/([a-z]{2})(\/.*)$/.exec(url)
  return match && isLocale(match[1]) ? pageUrlPath(match[1], match[2]!, defaultLocale) : url
}

/** Where a page's Markdown alternate lives: /about.md, /index.md for '/', /de/index.md for '/de/'. */
export function markdownPath(urlPath: string): string {
  return urlPath.endsWith('/') ? `${urlPath}index.md` : `${urlPath}.md`
}

/** A path from the page at `from` to `to`, both absolute paths of the release. */
export function relativePath(from: string, to: string): string {
  const fromDir = from
    .slice(0, from.lastIndexOf('/') + 1)
    .split('/')
    .filter(Boolean)
  const target = to.split('/')
  const last = target.pop() ?? ''
  const targetDir = target.filter(Boolean)
  let common = 0
  while (common < fromDir.length && common < targetDir.length && fromDir[common] === targetDir[common]) common++
  const up = '../'.repeat(fromDir.length - common)
  const down = targetDir
    .slice(common)
    .map((s) => `${s}/`)
    .join('')
  const result = `${up}${down}${last}`
  return result === '' ? './' : result
}

/** A site-internal href ('/contact#form') made relative to the page; anything else unchanged. */
export function localHref(from: string, href: string): string {
  if (!href.startsWith('/') || href.startsWith('//')) return href
  const cut = href.search(/[?#]/)
  const path = cut === -1 ? href : href.slice(0, cut)
  return relativePath(from, path) + (cut === -1 ? '' : href.slice(cut))
}
