import type { Config } from '../config.ts'
import { leadConsentFor } from '../domain/leads/consent.ts'
import { isLocale, type Locale } from '../domain/locales.ts'
import { hostingOf, type Hosting } from '../domain/sites/hosting.ts'
import { resolveAssistant } from '../domain/sites/settings.ts'
import { resolveTheme } from '../domain/sites/themes.ts'
import { navigationOf } from '../domain/sites/navigation.ts'
import { primaryHostname } from '../domain/sites/sites.ts'
import { subdomainOrigin } from '../domain/sites/subdomains.ts'
import type { Db } from '../infra/db.ts'
import { FORM_TOKEN_SLOT } from './form-token.ts'
import type { MediaStorage } from '../infra/media-storage.ts'
import { siteLogoId } from '../domain/sites/settings.ts'
import { resolveSiteMedia } from './site-media.ts'
import type { AiCrawlerChoices, Block, FormConsent, RenderPage, RenderSite } from './render/index.ts'

/** The AI crawlers robots.txt lets in: all unless the site's hosting settings refuse a purpose. */
function crawlerChoices(hosting: Hosting): AiCrawlerChoices {
  const c = hosting.ai_crawlers ?? {}
  return { search: c.search !== false, user_action: c.user_action !== false, training: c.training !== false }
}

/** Everything a build renders from, read in a few queries; undefined when the site is gone. */
export async function loadRenderInput(
  db: Db,
  config: Config,
  siteId: string,
  builtAt: Date,
  /** Given by a build: the og:image cuts and the logo's icons are made where missing. */
  storage?: MediaStorage,
): Promise<{ site: RenderSite; pages: RenderPage[]; accountId: string | null; mediaIds: string[] } | undefined> {
  // The domain that names the site is the one the API, MCP and GraphQL show (primaryHostname).
  const row = await db
    .selectFrom('sites')
    .select(['id', 'name', 'slug', 'account_id', 'default_locale', 'locales', 'settings', primaryHostname.as('domain')])
    .where('id', '=', siteId)
    .executeTakeFirst()
  if (!row) return undefined
  const [pageRows, blockRows] = await Promise.all([
    db.selectFrom('pages').selectAll().where('site_id', '=', siteId).execute(),
    db
      .selectFrom('blocks')
      .innerJoin('pages', 'pages.id', 'blocks.page_id')
      .select(['blocks.page_id', 'blocks.type', 'blocks.content'])
      .where('pages.site_id', '=', siteId)
      .orderBy('blocks.page_id')
      .orderBy('blocks.position')
      .execute(),
  ])
  const settings = row.settings ?? {}
  const hosting = hostingOf(settings)
  const locales = (Array.isArray(row.locales) ? row.locales : [row.default_locale]).filter(isLocale)
  const consent: Partial<Record<Locale, FormConsent>> = {}
  for (const locale of locales) consent[locale] = leadConsentFor(settings, locale)
  const site: RenderSite = {
    id: row.id,
    name: row.name,
    // Canonical on the primary own domain, else on the platform subdomain: a release is served on both.
    origin: row.domain ? `https://${row.domain}` : subdomainOrigin(row.slug, config),
    defaultLocale: row.default_locale,
    locales: locales.includes(row.default_locale) ? locales : [row.default_locale, ...locales],
    ...(hosting.description ? { description: hosting.description } : {}),
    organization: { ...hosting.organization, name: hosting.organization?.name ?? row.name },
    aiCrawlers: crawlerChoices(hosting),
    ...(resolveAssistant(settings).enabled ? { widgetOrigin: config.BASE_URL } : {}),
    formToken: FORM_TOKEN_SLOT,
    consent,
    theme: resolveTheme(settings),
    navigation: navigationOf(settings),
    builtAt,
  }
  const blocksByPage = new Map<string, Block[]>()
  // Contents were validated per type when written (src/domain/sites/block-content.ts).
  for (const b of blockRows)
    blocksByPage.set(b.page_id, [...(blocksByPage.get(b.page_id) ?? []), { type: b.type, content: b.content } as Block])
  const written: RenderPage[] = pageRows.map((p) => ({
    path: p.path,
    locale: p.locale,
    title: p.title,
    description: p.description,
    updatedAt: p.updated_at,
    blocks: blocksByPage.get(p.id) ?? [],
  }))
  const media = await resolveSiteMedia(db, row.account_id, written, siteLogoId(settings), storage)
  if (media.logo) site.logo = media.logo
  return { site, pages: media.pages, accountId: row.account_id, mediaIds: media.mediaIds }
}
