import { sql, type Selectable } from 'kysely'
import { newId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import { preparedQuery } from '../../infra/prepared.ts'
import { errors } from '../../errors.ts'
import { resolveAssistant, withAssistant, type AssistantView, type SiteSettings } from './settings.ts'
import { withTheme, type ThemeInput } from './themes.ts'
import { withNavigation, type Navigation } from './navigation.ts'
import { makeDraft, type Business, type Draft } from './templates/draft.ts'
import { legalPath, TEMPLATES, type BusinessType } from './templates/catalogue.ts'
import type { CopyWriter } from './templates/llm-copy.ts'
import { entitlementsOf } from '../accounts/add-ons.ts'
import { assertMayPublish, assertSiteAllowed } from '../accounts/limits.ts'
import type { SitesTable, SiteStatus } from '../../infra/tables.ts'
import type { Locale } from '../locales.ts'
import { insertActiveDomain, normaliseHostname, PLATFORM_DOMAIN_ID } from './domains.ts'
import { checkSlug, slugCandidate, slugFromName, slugOfHostname, subdomainTaken } from './subdomains.ts'
import { uniqueViolation, withTransaction } from '../transaction.ts'
import type { Paging } from '../paging.ts'
import { missingMedia, notInLibrary } from '../media/media.ts'

export { normaliseHostname }

export type Site = Selectable<SitesTable>

/** A site with the hostname it is known by: its primary active domain, or null. */
export type SiteRecord = Site & { domain: string | null }

/** The platform's own marketing site has a fixed id, so re-seeding with another BASE_URL moves it instead of duplicating it. */
export const PLATFORM_SITE_ID = 'site_platform'

/** The platform's own assistant: every capability on, booking through the demo page. */
export function platformSettings(baseUrl: string): SiteSettings {
  return {
    assistant: {
      enabled: true,
      persona: 'Ava',
      capabilities: { booking: true, booking_url: `${baseUrl}/demo`, lead: true, handoff: true },
    },
  }
}

/**
 * The assistant of a site answers on its active domains whether or not the site is published;
 * only a site taken offline silences it (DESIGN.md 7).
 */
export function assistantAnswers(status: SiteStatus): boolean {
  return status !== 'offline'
}

/**
 * Creates the platform site on first start and keeps its domain in step with BASE_URL; settings
 * an operator changed later are left alone. Safe to run from several instances at once.
 */
export async function seedPlatformSite(db: Db, baseUrl: string): Promise<void> {
  const hostname = normaliseHostname(new URL(baseUrl).hostname)
  await withTransaction(db, async (trx) => {
    const exists = await trx.selectFrom('sites').select('id').where('id', '=', PLATFORM_SITE_ID).executeTakeFirst()
    const slug = exists ? undefined : await freeSlug(trx, slugFromName('Web Presence'))
    await trx
      .insertInto('sites')
      .values({
        id: PLATFORM_SITE_ID,
        account_id: null,
        name: 'Web Presence',
        slug,
        status: 'live',
        published_at: new Date(),
        default_locale: 'en',
        settings: JSON.stringify(platformSettings(baseUrl)),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    await trx
      .insertInto('domains')
      .values({
        id: PLATFORM_DOMAIN_ID,
        site_id: PLATFORM_SITE_ID,
        hostname,
        status: 'active',
        primary: true,
        verification_value: 'platform',
        verified_at: new Date(),
      })
      .onConflict((oc) => oc.column('id').doUpdateSet({ hostname }).where('domains.hostname', '<>', hostname))
      .execute()
  })
}

export interface NewSite {
  name: string
  /** An active primary domain to give the site at once (the platform's own sites, tests). */
  hostname?: string
  accountId?: string | null
  /** The subdomain's label; made from the name (unique, with a -N suffix when taken) when not given. */
  slug?: string
  status?: SiteStatus
  defaultLocale?: Locale
  locales?: Locale[]
  settings?: SiteSettings
}

/** Checks the locale list: no repeats, and the default among them. */
function checkLocales(defaultLocale: Locale, locales: readonly Locale[]): void {
  if (new Set(locales).size !== locales.length) throw new errors.invalidLocales('The locales must not repeat')
  if (!locales.includes(defaultLocale)) throw new errors.invalidLocales('The default_locale must be one of the locales')
}

/** The first of slug, slug-2, slug-3, … that no site has. */
async function freeSlug(db: Db, base: string): Promise<string> {
  const rows = await db
    .selectFrom('sites')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute()
  const taken = new Set(rows.map((r) => r.slug))
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n)
    if (!taken.has(candidate)) return candidate
  }
}

/**
 * Stores a site. No plan limit is checked here: an account's site is made through
 * `createAccountSite`; this is also how the platform's own sites and fixtures are made. An
 * account's site notes whether the account's plan and add-ons include its sales assistant.
 */
export async function createSite(db: Db, site: NewSite): Promise<Site> {
  const defaultLocale = site.defaultLocale ?? site.locales?.[0] ?? 'en'
  const locales = site.locales ?? [defaultLocale]
  checkLocales(defaultLocale, locales)
  const chosen = site.slug === undefined ? undefined : checkSlug(site.slug)
  const status = site.status ?? 'draft'
  return withTransaction(db, async (trx) => {
    const included = site.accountId ? ((await entitlementsOf(trx, site.accountId))?.assistant ?? false) : undefined
    const settings: SiteSettings = included === undefined ? (site.settings ?? {}) : { ...site.settings, assistant_included: included }
    let row: Site | undefined
    // A slug another creation took in the meantime is skipped (the insert does nothing) and the next free one tried.
    while (!row) {
      row = await trx
        .insertInto('sites')
        .values({
          id: newId('site'),
          account_id: site.accountId ?? null,
          name: site.name,
          slug: chosen ?? (await freeSlug(trx, slugFromName(site.name))),
          status,
          published_at: status === 'draft' ? null : new Date(),
          default_locale: defaultLocale,
          locales: JSON.stringify(locales),
          settings: JSON.stringify(settings),
        })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returningAll()
        .executeTakeFirst()
      if (!row && chosen) throw subdomainTaken(chosen)
    }
    if (site.hostname !== undefined) await insertActiveDomain(trx, row.id, site.hostname)
    return row
  })
}

export async function updateSiteSettings(db: Db, siteId: string, settings: SiteSettings): Promise<void> {
  await db
    .updateTable('sites')
    .set({ settings: JSON.stringify(settings), updated_at: new Date() })
    .where('id', '=', siteId)
    .execute()
}

export async function findSiteById(db: Db, id: string): Promise<Site | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * The site a hostname belongs to: the site on which it is an active domain, or, given the
 * SITES_DOMAIN, the site whose platform subdomain it is.
 */
export async function findSiteByHostname(db: Db, hostname: string, sitesDomain?: string): Promise<Site | undefined> {
  const slug = sitesDomain === undefined ? undefined : slugOfHostname(normaliseHostname(hostname), sitesDomain)
  if (slug !== undefined) return db.selectFrom('sites').selectAll().where('slug', '=', slug).executeTakeFirst()
  return db
    .selectFrom('sites')
    .innerJoin('domains', 'domains.site_id', 'sites.id')
    .selectAll('sites')
    .where('domains.hostname', '=', normaliseHostname(hostname))
    .where('domains.status', '=', 'active')
    .executeTakeFirst()
}

/** True when a site answering on this hostname has its assistant switched on (the CORS allow-list). */
export async function assistantEnabledOn(db: Db, hostname: string, sitesDomain?: string): Promise<boolean> {
  const site = await findSiteByHostname(db, hostname, sitesDomain)
  return site !== undefined && assistantAnswers(site.status) && resolveAssistant(site.settings).enabled
}

// The account's sites, as the REST API and MCP see them.

/**
 * The order in which a site's active domains name it (`domains` is the table's name or alias in
 * the query): the primary one first, then the earliest verified.
 */
const primaryFirst = (domains: string) =>
  sql`${sql.ref(`${domains}.primary`)} desc, ${sql.ref(`${domains}.verified_at`)}, ${sql.ref(`${domains}.id`)}`

/** The primary active hostname of the `sites` row in scope; an active one when the primary flag sits on a domain not yet verified. */
export const primaryHostname = sql<string | null>`(
  select d.hostname from domains d where d.site_id = sites.id and d.status = 'active'
  order by ${primaryFirst('d')} limit 1)`

function accountSites(db: Db, accountId: string) {
  return db.selectFrom('sites').where('sites.account_id', '=', accountId)
}

/** The account's number of sites, kept by a trigger on sites (migration list-totals). */
const siteCount = (accountId: string) =>
  sql<number>`coalesce((select c.sites from account_site_counts c where c.account_id = ${accountId}), 0)`

/**
 * One page of the account's sites and their total, in one round trip. The page's ids come from
 * the index in list order, skipped rows read from the index alone; only the page's own rows are
 * read, and their primary domains in one pass over the page's active domains (a subquery per row
 * cost PostgreSQL a third of the list). The total, which rides on each row, is the account's site
 * count. Only a page past the end (no rows to carry it) asks for the count alone.
 */
const accountSitePage = preparedQuery((db: Db, accountId: string, limit: number, offset: number) =>
  db
    .with('page', (page) =>
      page
        .selectFrom('sites')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .offset(offset),
    )
    .with('primary_domains', (domains) =>
      domains
        .selectFrom('domains')
        .distinctOn('site_id')
        .select(['site_id', 'hostname'])
        .where('status', '=', 'active')
        .where('site_id', 'in', (page) => page.selectFrom('page').select('id'))
        .orderBy('site_id')
        .orderBy(primaryFirst('domains')),
    )
    .selectFrom('sites')
    .innerJoin('page', 'page.id', 'sites.id')
    .leftJoin('primary_domains', 'primary_domains.site_id', 'sites.id')
    .selectAll('sites')
    .select(['primary_domains.hostname as domain', siteCount(accountId).as('total_count')])
    .orderBy('sites.created_at')
    .orderBy('sites.id'),
)

export async function listAccountSites(db: Db, accountId: string, page: Paging): Promise<{ items: SiteRecord[]; total: number }> {
  const rows = await accountSitePage(db, accountId, page.limit, page.offset)
  // The rows are the records, their total riding along unread: no copy of each row without it.
  const items: SiteRecord[] = rows
  if (rows.length) return { items, total: Number(rows[0]!.total_count) }
  const { rows: count } = await sql<{ n: number }>`select ${siteCount(accountId)} as n`.execute(db)
  return { items, total: Number(count[0]!.n) }
}

const accountSite = preparedQuery((db: Db, accountId: string, siteId: string) =>
  accountSites(db, accountId).selectAll('sites').select(primaryHostname.as('domain')).where('sites.id', '=', siteId),
)

export async function getAccountSite(db: Db, accountId: string, siteId: string): Promise<SiteRecord | undefined> {
  const [site] = await accountSite(db, accountId, siteId)
  return site
}

export interface SiteInput {
  name: string
  /** The subdomain's label; from the name when not given. */
  slug?: string
  default_locale?: Locale
  locales?: Locale[]
  assistant?: Partial<AssistantView>
  theme?: ThemeInput
  /** The logo from the media library; null removes it. */
  logo_media_id?: string | null
  navigation?: Navigation | null
  /** A template to make the first draft from (its business type); `business.type` when not given. */
  template?: BusinessType
  /** Facts the first draft is filled with (templates/draft.ts). */
  business?: Business
}

/**
 * The first draft a new site starts with, when a template or business facts are given: the
 * template filled with the facts, its copy written by `writer` (the model) where there is one
 * and it answers well. Made before the site's transaction, which never waits on the model.
 */
export async function prepareDraft(input: SiteInput, writer?: CopyWriter): Promise<Draft | undefined> {
  const type = input.template ?? input.business?.type
  if (type === undefined) return undefined
  const business: Business = { ...input.business, type }
  const defaultLocale = input.default_locale ?? input.locales?.[0] ?? 'en'
  const locales = input.locales ?? [defaultLocale]
  const copy = writer ? await writer(type, business, business.name ?? input.name, locales) : undefined
  return makeDraft(type, business, { name: input.name, locales, defaultLocale }, copy)
}

/** The settings a draft brings: the template's preset unless a theme was chosen, its facts as the organization, the legal page out of the menu. */
function draftSettings(settings: SiteSettings, draft: Draft, input: SiteInput): SiteSettings {
  const themed = input.theme ? settings : withTheme(settings, { preset: TEMPLATES[draft.template].preset })
  const legal = legalPath(input.default_locale ?? input.locales?.[0] ?? 'en')
  const navigation = input.navigation === undefined ? withNavigation(themed, [{ page: legal, hidden: true }]) : themed
  const hosting = (settings as { hosting?: Record<string, unknown> }).hosting
  return { ...navigation, hosting: { ...hosting, organization: draft.organization } } as SiteSettings
}

/** Stores a draft's pages and their blocks (checked by the draft against the block schemas). */
async function insertDraft(trx: Db, siteId: string, draft: Draft): Promise<void> {
  const pages = draft.pages.map((page) => ({ id: newId('page'), page }))
  if (pages.length === 0) return
  await trx
    .insertInto('pages')
    .values(
      pages.map(({ id, page }) => ({
        id,
        site_id: siteId,
        path: page.path,
        locale: page.locale,
        title: page.title,
        description: page.description,
      })),
    )
    .execute()
  const blocks = pages.flatMap(({ id, page }) =>
    page.blocks.map((block, position) => ({
      id: newId('blk'),
      page_id: id,
      type: block.type,
      position,
      content: JSON.stringify(block.content),
    })),
  )
  if (blocks.length) await trx.insertInto('blocks').values(blocks).execute()
}

/**
 * Creates an account's draft site, within the plan's site limit (403 plan_limit, nothing stored),
 * with the pages of `draft` (prepareDraft) when given, in the same transaction.
 */
export async function createAccountSite(db: Db, accountId: string, input: SiteInput, draft?: Draft): Promise<SiteRecord> {
  const base = changedSettings(withAssistant({}, input.assistant ?? {}), { theme: input.theme, navigation: input.navigation })
  const settings = draft ? draftSettings(base, draft, input) : base
  return withTransaction(db, async (trx) => {
    await assertSiteAllowed(trx, accountId)
    const site = await createSite(trx, {
      name: input.name,
      slug: input.slug,
      accountId,
      status: 'draft',
      defaultLocale: input.default_locale,
      locales: input.locales,
      settings,
    })
    if (draft) await insertDraft(trx, site.id, draft)
    return { ...site, domain: null }
  })
}

export interface SitePatch {
  name?: string
  /** A new subdomain label; served at once, the old one stops answering (409 subdomain_taken when another site has it). */
  slug?: string
  /** live brings back a published site; offline takes it (and its assistant) down. */
  status?: 'live' | 'offline'
  default_locale?: Locale
  locales?: Locale[]
  assistant?: Partial<AssistantView>
  theme?: ThemeInput
  /** The logo from the media library; null removes it. */
  logo_media_id?: string | null
  /** The main menu; null: the default order. */
  navigation?: Navigation | null
}

/**
 * Changes a site under a row lock, so `check` (the caller's If-Match) sees the version it changes.
 * Answers undefined when the site is not the account's.
 */
export async function updateAccountSite(
  db: Db,
  accountId: string,
  siteId: string,
  patch: SitePatch,
  check: (current: SiteRecord) => void = () => {},
): Promise<SiteRecord | undefined> {
  return withTransaction(db, async (trx) => {
    const current = await accountSites(trx, accountId)
      .selectAll('sites')
      .select(primaryHostname.as('domain'))
      .where('sites.id', '=', siteId)
      .forUpdate()
      .executeTakeFirst()
    if (!current) return undefined
    check(current)
    const defaultLocale = patch.default_locale ?? current.default_locale
    const locales = patch.locales ?? current.locales
    checkLocales(defaultLocale, locales)
    if (patch.locales) {
      const orphaned = await trx
        .selectFrom('pages')
        .select('locale')
        .where('site_id', '=', siteId)
        .where('locale', 'not in', locales)
        .executeTakeFirst()
      if (orphaned) throw new errors.localeInUse(`Pages in locale '${orphaned.locale}' exist; delete them before removing the locale`)
    }
    if (patch.status === 'live' && current.live_build_id === null)
      throw new errors.siteNotBuilt('The site has no succeeded build to put live; rebuild it first')
    if (patch.status === 'live' && current.status !== 'live') await assertMayPublish(trx, siteId)
    if (patch.logo_media_id) {
      const missing = await missingMedia(trx, accountId, [patch.logo_media_id])
      if (missing.length) throw new errors.validationFailed(`logo_media_id: ${notInLibrary(missing)}`)
    }
    const slug = patch.slug === undefined || patch.slug === current.slug ? current.slug : checkSlug(patch.slug)
    if (slug !== current.slug && (await trx.selectFrom('sites').select('id').where('slug', '=', slug).executeTakeFirst()))
      throw subdomainTaken(slug)
    const updated = await trx
      .updateTable('sites')
      .set({
        name: patch.name ?? current.name,
        slug,
        status: patch.status ?? current.status,
        default_locale: defaultLocale,
        locales: JSON.stringify(locales),
        settings: JSON.stringify(changedSettings(current.settings, patch)),
        updated_at: new Date(),
      })
      .where('id', '=', siteId)
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((error: unknown) => {
        if (uniqueViolation(error) === 'sites_slug') throw subdomainTaken(slug)
        throw error
      })
    return { ...updated, domain: current.domain }
  })
}

function changedSettings(settings: SiteSettings, patch: SitePatch): SiteSettings {
  const assisted = patch.assistant ? withAssistant(settings, patch.assistant) : settings
  const themed = patch.theme ? withTheme(assisted, patch.theme) : assisted
  const navigated = patch.navigation === undefined ? themed : withNavigation(themed, patch.navigation)
  if (patch.logo_media_id === undefined) return navigated
  const { logo_media_id: _old, ...rest } = navigated
  return patch.logo_media_id === null ? rest : { ...rest, logo_media_id: patch.logo_media_id }
}

/** Deletes a site with its pages, blocks, domains, builds, leads and conversations. */
export async function deleteAccountSite(
  db: Db,
  accountId: string,
  siteId: string,
  check: (current: SiteRecord) => void = () => {},
): Promise<boolean> {
  return withTransaction(db, async (trx) => {
    const current = await accountSites(trx, accountId)
      .selectAll('sites')
      .select(primaryHostname.as('domain'))
      .where('sites.id', '=', siteId)
      .forUpdate()
      .executeTakeFirst()
    if (!current) return false
    check(current)
    await trx.deleteFrom('sites').where('id', '=', siteId).execute()
    return true
  })
}
