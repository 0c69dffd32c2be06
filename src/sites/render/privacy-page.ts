import type { Locale } from '../../domain/locales.ts'
import { mdText } from '../../domain/sites/page-markdown.ts'
import { PAGE_PATH_PATTERN } from '../../domain/sites/pages.ts'
import { DEFAULT_CONSENT } from '../../domain/sites/settings.ts'
import type { PlacedPage } from './page.ts'
import { consentLinkInLayout } from './paths.ts'
import type { Organization, RenderPage, RenderSite } from './types.ts'

/**
 * The privacy page a release adds where a contact form's consent links to a page of the site that
 * the site does not have (by default '/{locale}/privacy' on every plan): the visitor is asked to
 * agree, so the link must lead to words, not to the 404 page. It says only what the service knows
 * to be true: who runs the site, what the form collects and why, who stores it and for how long,
 * and whom to ask. A site with its own page at that address keeps it; a link elsewhere (an
 * absolute URL a site set in its consent) is left alone.
 */

const pagePath = new RegExp(PAGE_PATH_PATTERN)

interface Wording {
  description: (name: string) => string
  body: (who: { name: string; address?: string; email?: string; contactForm?: string }) => string[]
}

/** The sentences per locale; `name`, `address`, `email` and `contactForm` arrive as Markdown already. */
const WORDING: Record<Locale, Wording> = {
  en: {
    description: (name) => `How ${name} handles the details you send with the contact form on this site.`,
    body: ({ name, address, email, contactForm }) => [
      '## Who runs this site',
      `This site is run by ${name}${address ? `, ${address}` : ''}.${email ? ` You can write to us at ${email}.` : ''}`,
      '## What the contact form collects',
      'When you send the contact form, we receive your name, your email address and your message, together with the consent text you agreed to and the time you agreed to it.',
      '## Why',
      'We use these details to answer your enquiry.',
      '## Where they are kept',
      'This site is hosted by a website platform, which stores your message on our behalf. We keep it until we delete it.',
      '## Access and deletion',
      `To ask which details we hold about you, or to have them deleted, ${email ? `write to ${email}` : `send us a message through ${contactForm ?? 'the contact form on this site'}`}.`,
    ],
  },
  de: {
    description: (name) => `Wie ${name} mit den Angaben umgeht, die Sie über das Kontaktformular dieser Website senden.`,
    body: ({ name, address, email, contactForm }) => [
      '## Wer diese Website betreibt',
      `Diese Website wird von ${name} betrieben${address ? ` (${address})` : ''}.${email ? ` Sie erreichen uns unter ${email}.` : ''}`,
      '## Was das Kontaktformular erfasst',
      'Wenn Sie das Kontaktformular senden, erhalten wir Ihren Namen, Ihre E-Mail-Adresse und Ihre Nachricht, dazu den Text der Einwilligung, der Sie zugestimmt haben, und den Zeitpunkt Ihrer Zustimmung.',
      '## Wozu',
      'Wir verwenden diese Angaben, um Ihre Anfrage zu beantworten.',
      '## Wo sie gespeichert werden',
      'Diese Website wird auf einer Website-Plattform betrieben, die Ihre Nachricht in unserem Auftrag speichert. Wir bewahren sie auf, bis wir sie löschen.',
      '## Auskunft und Löschung',
      `Wenn Sie wissen möchten, welche Angaben wir über Sie gespeichert haben, oder sie löschen lassen möchten, ${email ? `schreiben Sie an ${email}` : `schreiben Sie uns über ${contactForm ?? 'das Kontaktformular dieser Website'}`}.`,
    ],
  },
  fr: {
    description: (name) => `Comment ${name} traite les informations que vous envoyez avec le formulaire de contact de ce site.`,
    body: ({ name, address, email, contactForm }) => [
      '## Qui gère ce site',
      `Ce site est géré par ${name}${address ? `, ${address}` : ''}.${email ? ` Vous pouvez nous écrire à ${email}.` : ''}`,
      '## Ce que recueille le formulaire de contact',
      "Lorsque vous envoyez le formulaire de contact, nous recevons votre nom, votre adresse e-mail et votre message, ainsi que le texte du consentement que vous avez accepté et le moment où vous l'avez accepté.",
      '## Pourquoi',
      'Nous utilisons ces informations pour répondre à votre demande.',
      '## Où elles sont conservées',
      "Ce site est hébergé par une plateforme de création de sites, qui conserve votre message pour notre compte. Nous le gardons jusqu'à ce que nous le supprimions.",
      '## Accès et suppression',
      `Pour savoir quelles informations nous détenons sur vous, ou pour les faire supprimer, ${email ? `écrivez à ${email}` : `écrivez-nous avec ${contactForm ?? 'le formulaire de contact de ce site'}`}.`,
    ],
  },
}

/** The words of a link to the contact form, per locale (the rest of the sentence is around it). */
const CONTACT_FORM: Record<Locale, string> = { en: 'the contact form', de: 'das Kontaktformular', fr: 'le formulaire de contact' }

/** Owner text set inline in Markdown: one line, markup characters and entities escaped. */
export function inline(text: string): string {
  return mdText(text.replace(/\s+/g, ' ').trim()).replace(/&/g, '\\&')
}

/** The country's name in the page's language when the code is one the runtime knows, else as written. */
function countryName(code: string, locale: Locale): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

function addressLine(address: Organization['address'], locale: Locale): string | undefined {
  if (!address) return undefined
  const town = [address.postal_code, address.locality].filter(Boolean).join(' ')
  return [address.street, town, address.country ? countryName(address.country, locale) : ''].filter(Boolean).map(inline).join(', ')
}

/** The page's text block: the organization's details from the site's settings, the rest fixed. */
function privacyMarkdown(site: RenderSite, locale: Locale, contactPage: string | undefined): string {
  const org = site.organization
  const email = org.email?.trim()
  return WORDING[locale]
    .body({
      name: inline(org.name),
      address: addressLine(org.address, locale),
      email: email ? `[${inline(email)}](<mailto:${encodeURI(email)}>)` : undefined,
      contactForm: contactPage ? `[${CONTACT_FORM[locale]}](${contactPage}#contact)` : undefined,
    })
    .join('\n\n')
}

/**
 * Where each locale's consent link leads inside the site, as a page (locale and path) of the
 * layout: '/privacy' is the default locale's, '/de/privacy' German's. Undefined for links that
 * leave the site or name no page path (the home page is never replaced).
 */
function linkedPage(site: RenderSite, url: string): { urlPath: string; locale: Locale; path: string } | undefined {
  if (!url.startsWith('/') || url.startsWith('//')) return undefined
  const urlPath = consentLinkInLayout(url.replace(/[?#].*$/s, ''), site.defaultLocale)
  if (site.locales.some((l) => urlPath === `/${l}`)) return undefined
  const locale = site.locales.find((l) => l !== site.defaultLocale && urlPath.startsWith(`/${l}/`)) ?? site.defaultLocale
  const path = locale === site.defaultLocale ? urlPath : urlPath.slice(locale.length + 1)
  return path !== '/' && pagePath.test(path) ? { urlPath, locale, path } : undefined
}

/**
 * The pages to add to a release whose consent links lead to pages the site lacks, one per
 * address, in the locale of the address. They are not the owner's pages: the build's page count
 * and the plan's limits (which count the owner's pages) never see them.
 */
export function privacyPages(site: RenderSite, placed: PlacedPage[]): RenderPage[] {
  const existing = new Set(placed.map((p) => p.urlPath))
  const added: RenderPage[] = []
  for (const consentLocale of site.locales) {
    const consent = site.consent[consentLocale]
    const target = consent && linkedPage(site, consent.privacy.url)
    if (!target || existing.has(target.urlPath)) continue
    existing.add(target.urlPath)
    const { locale, path } = target
    const contactPage = placed.find((p) => p.page.locale === locale && p.page.blocks.some((b) => b.type === 'contact_form'))?.urlPath
    added.push({
      path,
      locale,
      title: DEFAULT_CONSENT[locale].privacy.label,
      description: WORDING[locale].description(site.organization.name.replace(/\s+/g, ' ').trim()),
      updatedAt: site.builtAt,
      blocks: [{ type: 'text', content: { markdown: privacyMarkdown(site, locale, contactPage) } }],
    })
  }
  return added
}
