import type { Locale } from '../../domain/locales.ts'
import { pageBlocksMarkdown } from '../../domain/sites/page-markdown.ts'
import { blockHtml } from './blocks.ts'
import { firstPicture, iconLinks, logoHtml, ogImagePath } from './picture.ts'
import { documentShell, html, raw, type SafeHtml } from '../../infra/html.ts'
import { jsonForScript } from './escape.ts'
import { jsonLd } from './json-ld.ts'
import { LABELS } from './labels.ts'
import { consentLinkInLayout, markdownPath, pageUrlPath, relativePath } from './paths.ts'
import { themedStyle } from './style.ts'
import { addressLine, hoursInShort } from '../../domain/sites/hours.ts'
import { HOURS_HEADING } from '../../domain/sites/page-markdown.ts'
import { menuFor, type MenuEntry } from '../../domain/sites/navigation.ts'
import type { FormConsent, RenderPage, RenderSite } from './types.ts'
import type { LegalLink } from './legal-pages.ts'

/** A page placed in its release: where it lives and which pages are its translations. */
export interface PlacedPage {
  page: RenderPage
  urlPath: string
  /** The same path in every locale that has it, this page included. */
  alternates: Array<{ locale: Locale; urlPath: string }>
  /** Set on a page the build adds, not the owner (privacy-page.ts): it never joins the navigation. */
  added?: true
}

export function absoluteUrl(site: RenderSite, path: string): string {
  return `${site.origin}${path}`
}

/** Resolves a checked href against the page, for places that need absolute URLs (og:image, Markdown). */
function absolutiser(site: RenderSite, urlPath: string): (href: string) => string {
  return (href) => (/^[a-z][a-z0-9+.-]*:/i.test(href) ? href : new URL(href, absoluteUrl(site, urlPath)).href)
}

/** A title of at most 60 characters that names the site when there is room. */
function documentTitle(site: RenderSite, page: RenderPage, isHome: boolean): string {
  if (isHome || page.title.includes(site.name)) return page.title
  const full = `${page.title} – ${site.name}`
  return full.length <= 60 ? full : page.title
}

/**
 * The main navigation lists at most this many pages of a locale; a page further down adds itself
 * after them. Listing every page on every page made a site's bytes, and its build, grow with the
 * square of its pages; crawlers find the rest in sitemap.xml and llms.txt.
 */
export const NAVIGATION_PAGES = 50

/** Whether an entry of the menu, or one of its children, leads to the page at `path`. */
function leads(entry: MenuEntry, path: string): boolean {
  return (!entry.external && entry.href === path) || entry.children.some((c) => leads(c, path))
}

/**
 * The main navigation of one locale: the owner's menu (src/domain/sites/navigation.ts) or home
 * first, then by path; sub-pages as a nested list, shown as they are (no script, no hover), the
 * current page marked with aria-current and its parent item with the class "here".
 */
function navigation(site: RenderSite, placed: PlacedPage, siblings: PlacedPage[]): SafeHtml {
  const { locale, path } = placed.page
  const l = LABELS[locale]
  const full = menuFor(
    site.navigation ?? null,
    siblings.map((p) => p.page),
    locale,
    l.home,
  )
  const listed = full.length > NAVIGATION_PAGES ? full.slice(0, NAVIGATION_PAGES) : full
  const own = placed.added || listed.some((e) => leads(e, path)) ? undefined : full.find((e) => leads(e, path))
  const shown = own ? [...listed, own] : listed
  const link = (entry: MenuEntry): SafeHtml =>
    entry.external
      ? html`<a href="${entry.href}" rel="noopener">${entry.label}</a>`
      : html`<a href="${relativePath(placed.urlPath, pageUrlPath(locale, entry.href, site.defaultLocale))}"${entry.href === path ? html` aria-current="page"` : ''}>${entry.label}</a>`
  const items = shown.map(
    (entry) =>
      html`<li${entry.children.some((c) => leads(c, path)) ? html` class="here"` : ''}>${link(entry)}${entry.children.length ? html`<ul>${entry.children.map((c) => html`<li>${link(c)}</li>`)}</ul>` : ''}</li>`,
  )
  return html`<nav aria-label="${l.mainNav}"><ul>${items}</ul></nav>`
}

function languageLinks(placed: PlacedPage): SafeHtml {
  if (placed.alternates.length < 2) return html``
  const items = placed.alternates.map(
    (a) =>
      html`<li><a href="${relativePath(placed.urlPath, a.urlPath)}" hreflang="${a.locale}" lang="${a.locale}"${a.urlPath === placed.urlPath ? html` aria-current="page"` : ''}>${LABELS[a.locale].language}</a></li>`,
  )
  return html`<nav aria-label="${LABELS[placed.page.locale].languages}"><ul>${items}</ul></nav>`
}

/** The legal page and the privacy page of the page's language, in the footer of every page. */
function legalNav(placed: PlacedPage, legal: readonly LegalLink[]): SafeHtml {
  if (legal.length === 0) return html``
  const items = legal.map(
    (link) =>
      html`<li><a href="${relativePath(placed.urlPath, link.urlPath)}"${link.urlPath === placed.urlPath ? html` aria-current="page"` : ''}>${link.label}</a></li>`,
  )
  return html`<nav aria-label="${LABELS[placed.page.locale].legal}"><ul>${items}</ul></nav>`
}

const CALL: Record<Locale, string> = { en: 'Call us', de: 'Anrufen', fr: 'Appeler' }

function telHref(phone: string): string {
  return `tel:${phone.replace(/[^+0-9]/g, '')}`
}

/** A call button where the site has a phone number, shown on phones only (the stylesheet's .call). */
function callButton(site: RenderSite, locale: Locale): SafeHtml {
  const phone = site.organization.telephone
  return phone ? html`<a class="call" href="${telHref(phone)}">${CALL[locale]}</a>` : html``
}

/** The networks people know by name; any other profile is named by its host. */
const NETWORKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)instagram\.com$/, 'Instagram'],
  [/(^|\.)facebook\.com$/, 'Facebook'],
  [/(^|\.)linkedin\.com$/, 'LinkedIn'],
  [/(^|\.)(x|twitter)\.com$/, 'X'],
  [/(^|\.)youtube\.com$/, 'YouTube'],
  [/(^|\.)tiktok\.com$/, 'TikTok'],
  [/(^|\.)pinterest\.[a-z.]+$/, 'Pinterest'],
  [/(^|\.)bsky\.app$/, 'Bluesky'],
  [/(^|\.)xing\.com$/, 'XING'],
  [/(^|\.)threads\.(net|com)$/, 'Threads'],
]

function networkName(href: string): string {
  const host = new URL(href).hostname.replace(/^www\./, '')
  return NETWORKS.find(([pattern]) => pattern.test(host))?.[1] ?? host
}

/** The business in the footer: name, address, phone, email, and the opening hours in short. */
function businessFooter(site: RenderSite, locale: Locale): SafeHtml {
  const org = site.organization
  const lines = html`${org.address ? html`<p>${addressLine(org.address)}</p>` : ''}${org.telephone ? html`<p><a href="${telHref(org.telephone)}">${org.telephone}</a></p>` : ''}${org.email ? html`<p><a href="mailto:${org.email}">${org.email}</a></p>` : ''}`
  const hours = site.hours ? hoursInShort(site.hours, locale) : ''
  const social = org.social?.length
    ? html`<ul class="social">${org.social.map((href) => html`<li><a href="${href}" rel="me noopener">${networkName(href)}</a></li>`)}</ul>`
    : ''
  return html`${lines.value || social ? html`<div><h2>${org.name}</h2>${lines.value ? html`<address>${lines}</address>` : ''}${social}</div>` : ''}${hours ? html`<div><h2>${HOURS_HEADING[locale]}</h2><p>${hours}</p></div>` : ''}`
}

interface ShellParts {
  title: string
  head: SafeHtml
  main: SafeHtml
  nav: SafeHtml
  footerExtra: SafeHtml
}

function shell(site: RenderSite, locale: Locale, from: string, parts: ShellParts): string {
  const l = LABELS[locale]
  const style = themedStyle(site.theme, from)
  // data-site names this site's host, so the widget is this site's assistant also where the page is
  // served on another host (the preview on the service's own, a local copy).
  const widget = site.widgetOrigin
    ? html`<script src="${site.widgetOrigin}/widget.js" data-site="${new URL(site.origin).hostname}" defer></script>`
    : undefined
  return documentShell({
    lang: locale,
    title: parts.title,
    head: html`${style.preloads.map((font) => html`<link rel="preload" href="${font.href}" as="font" type="font/woff2" crossorigin>`)}${iconLinks(site, from)}${parts.head}<link rel="webmention" href="${relativePath(from, '/_wps/webmention')}">`,
    style: style.css,
    scripts: widget,
    body: html`<a class="skip" href="#main">${l.skip}</a><header><a class="brand" href="${relativePath(from, pageUrlPath(locale, '/', site.defaultLocale))}">${logoHtml(site, from)}${site.name}</a>${callButton(site, locale)}${parts.nav}</header><main id="main">${parts.main}</main><footer><div class="foot">${businessFooter(site, locale)}<div>${parts.footerExtra}<p>© ${site.builtAt.getUTCFullYear()} ${site.organization.name}</p></div></div></footer>`,
  }).value
}

/**
 * The consent's privacy link ('/en/privacy' by default) where that page lives in this release's
 * layout ('/privacy' for the default locale). Only the link moves: the digest covers the text the
 * visitor agrees to, which is unchanged.
 */
function withPrivacyInLayout(site: RenderSite, consent: FormConsent | undefined): FormConsent | undefined {
  if (!consent) return consent
  const url = consentLinkInLayout(consent.privacy.url, site.defaultLocale)
  return url === consent.privacy.url ? consent : { ...consent, privacy: { ...consent.privacy, url } }
}

/** One page as a complete HTML document. */
export function pageHtml(site: RenderSite, placed: PlacedPage, siblings: PlacedPage[], legal: readonly LegalLink[] = []): string {
  const { page, urlPath } = placed
  const url = absoluteUrl(site, urlPath)
  const homePath = pageUrlPath(page.locale, '/', site.defaultLocale)
  const home = siblings.find((p) => p.urlPath === homePath)
  const title = documentTitle(site, page, urlPath === homePath)
  const image = ogImagePath(firstPicture(page.blocks)) ?? ogImagePath(site.logo ? { media: site.logo } : undefined)
  const imageUrl = image ? absolutiser(site, urlPath)(image) : site.organization.logo
  const hreflang =
    placed.alternates.length > 1
      ? html`${placed.alternates.map((a) => html`<link rel="alternate" hreflang="${a.locale}" href="${absoluteUrl(site, a.urlPath)}">`)}${placed.alternates
          .filter((a) => a.locale === site.defaultLocale)
          .map((a) => html`<link rel="alternate" hreflang="x-default" href="${absoluteUrl(site, a.urlPath)}">`)}`
      : ''
  const head = html`<meta name="description" content="${page.description}"><link rel="canonical" href="${url}">${hreflang}<link rel="alternate" type="text/markdown" href="${relativePath(urlPath, markdownPath(urlPath))}"><meta property="og:type" content="website"><meta property="og:site_name" content="${site.name}"><meta property="og:title" content="${page.title}"><meta property="og:description" content="${page.description}"><meta property="og:url" content="${url}"><meta property="og:locale" content="${page.locale}">${imageUrl ? html`<meta property="og:image" content="${imageUrl}">` : ''}<meta name="twitter:card" content="${imageUrl ? 'summary_large_image' : 'summary'}"><meta name="twitter:title" content="${page.title}"><meta name="twitter:description" content="${page.description}"><script type="application/ld+json">${raw(jsonForScript(jsonLd(site, page, url, absoluteUrl(site, homePath), home?.page.title ?? site.name)))}</script>`
  const leadingHero = page.blocks[0]?.type === 'hero'
  const firstImageBlock = page.blocks.findIndex((block) => firstPicture([block]) !== undefined)
  const consent = withPrivacyInLayout(site, site.consent[page.locale])
  const blocks = page.blocks.map((block, index) =>
    blockHtml(block, {
      from: urlPath,
      locale: page.locale,
      isH1: leadingHero && index === 0,
      index,
      firstImage: index === firstImageBlock,
      formToken: site.formToken,
      consent,
      pagePath: page.path,
    }),
  )
  const main = html`${leadingHero ? '' : html`<h1>${page.title}</h1>`}${blocks}`
  return shell(site, page.locale, urlPath, {
    title,
    head,
    main,
    nav: navigation(site, placed, siblings),
    footerExtra: html`${legalNav(placed, legal)}${languageLinks(placed)}`,
  })
}

/** The page's Markdown alternate: its title, description and every block, links absolute. */
export function pageMarkdown(site: RenderSite, placed: PlacedPage): string {
  const { page, urlPath } = placed
  const { h1, body } = pageBlocksMarkdown(page.blocks, page.locale, absolutiser(site, urlPath))
  // The h1 comes first (the leading hero's, or the title), then the description as the summary.
  const parts = [h1 ?? `# ${page.title}`, `> ${page.description.replace(/\s+/g, ' ')}`, ...body]
  return `${parts.filter(Boolean).join('\n\n')}\n`
}

/** The 404 page in the site's default locale; it is never indexed. */
export function notFoundHtml(site: RenderSite): string {
  const locale = site.defaultLocale
  const l = LABELS[locale]
  // Served at any depth, so its relative links resolve against the site's canonical origin.
  const head = html`<base href="${site.origin}/"><meta name="robots" content="noindex">`
  const main = html`<h1>${l.notFoundTitle}</h1><p>${l.notFoundText}</p><p><a href="./">${l.backHome}</a></p>`
  return shell(site, locale, '/', { title: `${l.notFoundTitle} – ${site.name}`, head, main, nav: html``, footerExtra: html`` })
}
