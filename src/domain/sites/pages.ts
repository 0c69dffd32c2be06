import type { Selectable } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { PagesTable } from '../../infra/tables.ts'
import { errors } from '../../errors.ts'
import type { Locale } from '../locales.ts'
import type { Site } from './sites.ts'
import { uniqueViolation, withTransaction } from '../transaction.ts'
import { redirectMovedPage } from './redirects.ts'
import type { Paging } from '../paging.ts'
import { pathFromTitle, uniquePath } from './page-paths.ts'

export type Page = Selectable<PagesTable>

export { PAGE_PATH_PATTERN } from './page-paths.ts'

export interface PageInput {
  /** Made from the title when not given (page-paths.ts). */
  path?: string
  locale?: Locale
  title: string
  description?: string
}

function pathTaken(path: string, locale: Locale) {
  return new errors.pagePathTaken(`A page with path ${path} in locale ${locale} already exists on this site`)
}

function checkLocale(site: Pick<Site, 'locales'>, locale: Locale): void {
  if (!site.locales.includes(locale))
    throw new errors.localeNotOnSite(`The site does not offer locale '${locale}'; add it to the site's locales first`)
}

/** Runs a write and turns the path's unique index into 409 page_path_taken. */
async function guardPath<T>(write: Promise<T>, path: string, locale: Locale): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (uniqueViolation(error) === 'pages_site_locale_path') throw pathTaken(path, locale)
    throw error
  }
}

function accountPages(db: Db, accountId: string) {
  return db.selectFrom('pages').innerJoin('sites', 'sites.id', 'pages.site_id').selectAll('pages').where('sites.account_id', '=', accountId)
}

export async function listSitePages(db: Db, siteId: string, page: Paging): Promise<{ items: Page[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('pages')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('locale')
      .orderBy('path')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('pages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

export async function getAccountPage(db: Db, accountId: string, pageId: string): Promise<Page | undefined> {
  return accountPages(db, accountId).where('pages.id', '=', pageId).executeTakeFirst()
}

export async function createPage(db: Db, site: Pick<Site, 'id' | 'locales' | 'default_locale'>, input: PageInput): Promise<Page> {
  const locale = input.locale ?? site.default_locale
  checkLocale(site, locale)
  const path = input.path ?? (await freePath(db, site.id, locale, pathFromTitle(input.title, locale)))
  const write = db
    .insertInto('pages')
    .values({ id: newId('page'), site_id: site.id, path, locale, title: input.title, description: input.description ?? '' })
    .returningAll()
    .executeTakeFirstOrThrow()
  return guardPath(write, path, locale)
}

/** A path made from a title, unique among the site's pages of the locale. */
async function freePath(db: Db, siteId: string, locale: Locale, base: string): Promise<string> {
  const rows = await db
    .selectFrom('pages')
    .select('path')
    .where('site_id', '=', siteId)
    .where('locale', '=', locale)
    .where((eb) => eb.or([eb('path', '=', base), eb('path', 'like', `${base}-%`)]))
    .execute()
  return uniquePath(base, new Set(rows.map((r) => r.path)))
}

/** Changes a page under a row lock, so `check` (the caller's If-Match) sees the version it changes. */
export async function updatePage(
  db: Db,
  accountId: string,
  pageId: string,
  patch: Partial<PageInput>,
  check: (current: Page) => void = () => {},
): Promise<Page | undefined> {
  return withTransaction(db, async (trx) => {
    const current = await accountPages(trx, accountId).where('pages.id', '=', pageId).forUpdate().executeTakeFirst()
    if (!current) return undefined
    check(current)
    const locale = patch.locale ?? current.locale
    const path = patch.path ?? current.path
    const site = await trx
      .selectFrom('sites')
      .select(['locales', 'default_locale', 'live_build_id'])
      .where('id', '=', current.site_id)
      .executeTakeFirstOrThrow()
    if (patch.locale) checkLocale(site, locale)
    // Checked first: a unique violation would abort the caller's transaction.
    const clash = await trx
      .selectFrom('pages')
      .select('id')
      .where('site_id', '=', current.site_id)
      .where('locale', '=', locale)
      .where('path', '=', path)
      .where('id', '<>', pageId)
      .executeTakeFirst()
    if (clash) throw pathTaken(path, locale)
    const write = trx
      .updateTable('pages')
      .set({
        path,
        locale,
        title: patch.title ?? current.title,
        description: patch.description ?? current.description,
        updated_at: new Date(),
      })
      .where('id', '=', pageId)
      .returningAll()
      .executeTakeFirstOrThrow()
    const changed = await guardPath(write, path, locale)
    await redirectIfPublished(trx, current.site_id, site, current, changed)
    return changed
  })
}

/** The address of a page on its site: its path, under /{locale} for a locale other than the default. */
export function pageAddress(defaultLocale: Locale, page: Pick<Page, 'locale' | 'path'>): string {
  return page.locale === defaultLocale ? page.path : `/${page.locale}${page.path}`
}

/** A page that the live release shows moved to another address: its old one redirects with a 301 (DESIGN.md 19). */
async function redirectIfPublished(
  trx: Db,
  siteId: string,
  site: { default_locale: Locale; live_build_id: string | null },
  before: Page,
  after: Page,
): Promise<void> {
  const from = pageAddress(site.default_locale, before)
  const to = pageAddress(site.default_locale, after)
  if (from === to || !site.live_build_id) return
  const published = await trx
    .selectFrom('build_files')
    .select('path')
    .where('build_id', '=', site.live_build_id)
    .where('path', '=', from)
    .executeTakeFirst()
  if (published) await redirectMovedPage(trx, siteId, from, to)
}

export async function deletePage(db: Db, accountId: string, pageId: string, check: (current: Page) => void = () => {}): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const current = await accountPages(trx, accountId).where('pages.id', '=', pageId).forUpdate().executeTakeFirst()
    if (!current) return false
    check(current)
    await trx.deleteFrom('pages').where('id', '=', pageId).execute()
    return true
  })
}
