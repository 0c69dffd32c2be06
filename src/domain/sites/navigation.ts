import { Type, type Static } from 'typebox'
import { errors } from '../../errors.ts'
import { LOCALES, type Locale } from '../locales.ts'
import { PAGE_PATH_PATTERN } from './page-paths.ts'
import { safeHref } from './safe-href.ts'
import type { SiteSettings } from './settings.ts'

/**
 * The site's main menu (DESIGN.md 15): the owner's order, pages hidden from it, one level of
 * sub-pages, and links to other sites. Kept in the site's settings as `navigation`; a site
 * without one lists its pages home first, then by path. A page the menu does not name joins it
 * at the end, so a new page is never lost; one marked hidden stays out. Pages are named by path,
 * which their translations share, so one menu serves every language of the site.
 */

const strict = { additionalProperties: false } as const
export const NAVIGATION_ITEMS = 40
const CHILDREN = 20

const itemFields = {
  page: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, pattern: PAGE_PATH_PATTERN, description: 'A page of the site by its path' }),
  ),
  url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      pattern: '^(https?://|mailto:|tel:)',
      description: 'A link elsewhere (https://, mailto: or tel:); needs a label',
    }),
  ),
  label: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'The words in the menu; a page without one shows its title' }),
  ),
  labels: Type.Optional(
    Type.Object(Object.fromEntries(LOCALES.map((l) => [l, Type.Optional(Type.String({ minLength: 1, maxLength: 80 }))])), {
      ...strict,
      description: 'The label per language, where it differs from label',
    }),
  ),
  hidden: Type.Optional(Type.Boolean({ description: 'Keep this page out of the menu' })),
}

export const NavigationChild = Type.Object(itemFields, { ...strict, description: 'A sub-page or link under a menu item' })
export const NavigationItem = Type.Object(
  { ...itemFields, children: Type.Optional(Type.Array(NavigationChild, { maxItems: CHILDREN })) },
  { ...strict, description: 'A menu item: a page (page) or a link elsewhere (url and label), with sub-items one level deep' },
)
export const Navigation = Type.Array(NavigationItem, {
  maxItems: NAVIGATION_ITEMS,
  description:
    'The main menu in order; pages it does not name follow at the end (home first, then by path) unless hidden. [] returns to the default order (shown as null)',
})
export type NavigationItem = Static<typeof NavigationItem>
export type Navigation = Static<typeof Navigation>

/** The rules a schema cannot say: a page or a link, never both; a link has words; a page once. */
export function checkNavigation(items: Navigation): Navigation {
  const seen = new Set<string>()
  const check = (item: Static<typeof NavigationChild>, at: string) => {
    if ((item.page === undefined) === (item.url === undefined))
      throw new errors.validationFailed(`The field '${at}' must name either a page or a url`)
    if (item.url !== undefined) {
      if (item.label === undefined) throw new errors.validationFailed(`The field '${at}.label' is required with a url`)
      if (!safeHref(item.url)) throw new errors.validationFailed(`The field '${at}.url' is not a link the site may show`)
      if (item.hidden) throw new errors.validationFailed(`The field '${at}.hidden' applies to pages; remove the link instead`)
    }
    if (item.page !== undefined) {
      if (seen.has(item.page)) throw new errors.validationFailed(`The field '${at}.page' names ${item.page} a second time`)
      seen.add(item.page)
    }
  }
  items.forEach((item, i) => {
    check(item, `navigation.${i}`)
    item.children?.forEach((child, j) => check(child, `navigation.${i}.children.${j}`))
  })
  return items
}

/** The menu the owner set, or null for the default order. */
export function navigationOf(settings: SiteSettings): Navigation | null {
  const stored = (settings as { navigation?: unknown }).navigation
  return Array.isArray(stored) ? (stored as Navigation) : null
}

/** Settings with the menu replaced (null: back to the default order). */
export function withNavigation(settings: SiteSettings, navigation: Navigation | null): SiteSettings {
  const next = { ...settings } as SiteSettings & { navigation?: Navigation }
  if (navigation === null || navigation.length === 0) delete next.navigation
  else next.navigation = checkNavigation(navigation)
  return next
}

/** One entry of a language's menu, resolved: where it leads and what it says. */
export interface MenuEntry {
  label: string
  /** A page's path inside its locale ('/about'), or an outside address. */
  href: string
  external: boolean
  children: MenuEntry[]
}

export interface MenuPage {
  path: string
  title: string
}

/**
 * The menu of one language: the owner's items that exist in it, then the pages the menu does not
 * name (in the order given: home first, then by path), the hidden ones left out. A sub-page whose
 * parent page is missing in this language moves up a level. `homeLabel` names the home page
 * where the owner gave no label.
 */
export function menuFor(navigation: Navigation | null, pages: MenuPage[], locale: Locale, homeLabel: string): MenuEntry[] {
  const byPath = new Map(pages.map((p) => [p.path, p]))
  const named = new Set<string>()
  const label = (item: Static<typeof NavigationChild>, page: MenuPage | undefined) =>
    item.labels?.[locale] ?? item.label ?? (page ? (page.path === '/' ? homeLabel : page.title) : '')
  const entry = (item: Static<typeof NavigationChild>): MenuEntry | undefined => {
    if (item.url !== undefined) return { label: label(item, undefined), href: item.url, external: true, children: [] }
    const page = byPath.get(item.page!)
    if (!page || item.hidden) return undefined
    return { label: label(item, page), href: page.path, external: false, children: [] }
  }
  for (const item of navigation ?? []) {
    if (item.page) named.add(item.page)
    for (const child of item.children ?? []) if (child.page) named.add(child.page)
  }
  const menu: MenuEntry[] = []
  for (const item of navigation ?? []) {
    const children = (item.children ?? []).map(entry).filter((e): e is MenuEntry => e !== undefined)
    const top = entry(item)
    if (top) menu.push({ ...top, children })
    else menu.push(...children)
  }
  for (const page of pages)
    if (!named.has(page.path))
      menu.push({ label: page.path === '/' ? homeLabel : page.title, href: page.path, external: false, children: [] })
  return menu
}
