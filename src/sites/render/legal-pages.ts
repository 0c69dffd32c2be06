import { LOCALES, type Locale } from '../../domain/locales.ts'
import { legalPath } from '../../domain/sites/templates/catalogue.ts'
import { SHARED } from '../../domain/sites/templates/words.ts'
import type { PlacedPage } from './page.ts'
import { consentLinkInLayout } from './paths.ts'
import { inline as line } from './privacy-page.ts'
import type { RenderPage, RenderSite } from './types.ts'

/**
 * The legal pages of a release and the footer's links to them (DESIGN.md 15). A site in German
 * or with a German address needs an Impressum (§ 5 DDG: who runs it, where, how to reach them);
 * where the owner has no legal page, the release adds one made from the organization data, as it
 * adds the privacy page. Every page's footer links the legal page and the privacy page of its
 * language where the release has them.
 */

/** The paths a legal page takes: the templates' legal page title in each language, as a path. */
const LEGAL_PATHS = new Set(LOCALES.map(legalPath))

const WORDING: Record<
  Locale,
  { description: (name: string) => string; who: string; contact: string; phone: string; email: string; register: string; vat: string }
> = {
  de: {
    description: (name) => `Anbieterkennzeichnung von ${name} nach § 5 DDG.`,
    who: 'Angaben gemäß § 5 DDG',
    contact: 'Kontakt',
    phone: 'Telefon',
    email: 'E-Mail',
    register: 'Registereintrag',
    vat: 'Umsatzsteuer-Identifikationsnummer gemäß § 27a UStG',
  },
  en: {
    description: (name) => `Who runs this site: ${name} (legal notice under § 5 DDG).`,
    who: 'Information under § 5 DDG',
    contact: 'Contact',
    phone: 'Phone',
    email: 'Email',
    register: 'Register entry',
    vat: 'VAT identification number',
  },
  fr: {
    description: (name) => `Qui édite ce site : ${name} (mentions prévues par le § 5 DDG).`,
    who: 'Informations selon le § 5 DDG',
    contact: 'Contact',
    phone: 'Téléphone',
    email: 'E-mail',
    register: 'Immatriculation',
    vat: 'Numéro de TVA intracommunautaire',
  },
}

const GERMANY = /^(de|deu|germany|deutschland|allemagne)$/i

/** The Impressum a release adds: in German where the site speaks it, else in its main language; none where the owner has a legal page. */
export function impressumPage(site: RenderSite, placed: PlacedPage[]): RenderPage | undefined {
  const org = site.organization
  const due = site.locales.includes('de') || GERMANY.test(org.address?.country?.trim() ?? '')
  if (!due) return undefined
  const locale: Locale = site.locales.includes('de') ? 'de' : site.defaultLocale
  if (placed.some((p) => p.page.locale === locale && LEGAL_PATHS.has(p.page.path))) return undefined
  const w = WORDING[locale]
  const address = org.address
  const lines = [
    line(org.name),
    ...(address
      ? [line(address.street), line([address.postal_code, address.locality].filter(Boolean).join(' ')), line(address.country)]
      : []),
  ].filter(Boolean)
  const contact = [
    org.telephone ? `${w.phone}: ${line(org.telephone)}` : '',
    org.email ? `${w.email}: [${line(org.email)}](<mailto:${encodeURI(org.email.trim())}>)` : '',
  ].filter(Boolean)
  const markdown = [
    `## ${w.who}`,
    lines.join('  \n'),
    ...(contact.length ? [`## ${w.contact}`, contact.join('  \n')] : []),
    ...(org.register ? [`## ${w.register}`, line(org.register)] : []),
    ...(org.vat_id ? [`## ${w.vat}`, line(org.vat_id)] : []),
  ].join('\n\n')
  return {
    path: legalPath(locale),
    locale,
    title: SHARED[locale].legalTitle,
    description: w.description(org.name.replace(/\s+/g, ' ').trim()),
    updatedAt: site.builtAt,
    blocks: [{ type: 'text', content: { markdown } }],
  }
}

/** A link of the footer's legal navigation: the page's title and where it lives in the release. */
export interface LegalLink {
  label: string
  urlPath: string
}

/** The footer's legal links of each language: its legal page, then its privacy page, where the release has them. */
export function legalLinks(site: RenderSite, placed: PlacedPage[]): Map<Locale, LegalLink[]> {
  const links = new Map<Locale, LegalLink[]>()
  const at = new Map(placed.map((p) => [p.urlPath, p]))
  for (const locale of site.locales) {
    const found: LegalLink[] = []
    const legal = placed.find((p) => p.page.locale === locale && LEGAL_PATHS.has(p.page.path))
    if (legal) found.push({ label: legal.page.title, urlPath: legal.urlPath })
    const consent = site.consent[locale]
    // Where the language's consent links, or else its page at the default address, /privacy.
    const privacy =
      (consent && at.get(consentLinkInLayout(consent.privacy.url.replace(/[?#].*$/s, ''), site.defaultLocale))) ??
      placed.find((p) => p.page.locale === locale && p.page.path === '/privacy')
    if (privacy && privacy !== legal) found.push({ label: privacy.page.title, urlPath: privacy.urlPath })
    links.set(locale, found)
  }
  return links
}
