import type { FastifyInstance } from 'fastify'
import { domainToUnicode } from 'node:url'
import { Type } from 'typebox'
import { getAccountBlock } from '../../../domain/sites/blocks.ts'
import type { Locale } from '../../../domain/locales.ts'
import { translator, type Translator } from '../../../domain/i18n/translator.ts'
import { getAccountPage } from '../../../domain/sites/pages.ts'
import { getAccountSite, type SiteRecord } from '../../../domain/sites/sites.ts'
import { subdomainHost, subdomainOrigin } from '../../../domain/sites/subdomains.ts'
import { previewUrl, siteView } from '../../../domain/sites/views.ts'
import { errors } from '../../../errors.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'

/** What the editor's screens share: the account's site, page or block named by the route (404 for anyone else's), and where a site is seen. */

const id = (prefix: string) => Type.String({ pattern: `^${prefix}_[A-Za-z0-9_-]{1,64}$` })
export const SiteParams = Type.Object({ id: id('site') })
export const PageParams = Type.Object({ id: id('page') })
export const BlockParams = Type.Object({ id: id('blk') })

/** A domain as people write it (bäckerei.de), from the ASCII form it is stored and sent in (xn--bckerei-5wa.de); form values and links keep the stored form. */
export function shownDomain(hostname: string): string {
  return domainToUnicode(hostname) || hostname
}

/** A site's language as the page names it: "German (Deutsch)", "Deutsch", "allemand (Deutsch)". */
export function localeName(t: Translator, locale: Locale): string {
  return t.t(`editor.locale.${locale}`)
}

export function localeOptions(t: Translator, locales: readonly Locale[]): Array<readonly [Locale, string]> {
  return locales.map((locale) => [locale, localeName(t, locale)] as const)
}

/** The words of a 404 for what is not in the account: in the page's language where the caller gives it, else English. */
const ENGLISH = translator('en')

export async function ownSite(app: FastifyInstance, accountId: string, siteId: string, t: Translator = ENGLISH): Promise<SiteRecord> {
  const site = await getAccountSite(app.db, accountId, siteId)
  if (!site) throw new errors.notFound(t.t('editor.notFound.site'))
  return site
}

export async function ownPage(app: FastifyInstance, accountId: string, pageId: string, t: Translator = ENGLISH) {
  const page = await getAccountPage(app.db, accountId, pageId)
  if (!page) throw new errors.notFound(t.t('editor.notFound.page'))
  return { page, site: await ownSite(app, accountId, page.site_id, t) }
}

export async function ownBlock(app: FastifyInstance, accountId: string, blockId: string, t: Translator = ENGLISH) {
  const block = await getAccountBlock(app.db, accountId, blockId)
  if (!block) throw new errors.notFound(t.t('editor.notFound.block'))
  return { block, ...(await ownPage(app, accountId, block.page_id, t)) }
}

/** The site as /v1 shows it: its version is the ETag of this view. */
export function viewOfSite(app: FastifyInstance, site: SiteRecord) {
  return siteView(site, app.config)
}

/** Where a site is seen: its preview (latest build), its platform subdomain, and its own domain once active. */
export function addressesOf(app: FastifyInstance, site: SiteRecord) {
  return {
    preview: previewUrl(app.config.BASE_URL, site.id),
    subdomain: subdomainHost(site.slug, app.config.SITES_DOMAIN),
    subdomainUrl: `${subdomainOrigin(site.slug, app.config)}/`,
    domainUrl: site.domain === null ? null : `https://${site.domain}/`,
  }
}

/** Where the screens sit: Sites › the site › … (the last one is this screen). */
export function crumbs(t: Translator, trail: ReadonlyArray<readonly [label: string, href?: string]>): SafeHtml {
  return html`<nav class="crumbs" aria-label="${t.t('editor.crumbs')}"><ol><li><a href="/app/sites">${t.t('nav.sites')}</a></li>${trail.map(
    ([label, href]) => (href ? html`<li><a href="${href}">${label}</a></li>` : html`<li><span aria-current="page">${label}</span></li>`),
  )}</ol></nav>`
}

/** A page's address inside its site: the default locale at the root, others under their code (as the build lays them out). */
export function pageAddress(site: Pick<SiteRecord, 'default_locale'>, page: { locale: Locale; path: string }): string {
  return page.locale === site.default_locale ? page.path : `/${page.locale}${page.path}`
}

/** What a viewer reads where an editor finds a form (DESIGN.md 12), in the page's language. */
export function viewOnly(t: Translator, what: 'site' | 'page' | 'sites' = 'site'): SafeHtml {
  return html`<p class="notice view-only" role="note">${t.t('editor.viewOnly', { what })}</p>`
}
