import type { Block, RenderPage, RenderSite } from './types.ts'
import { menuSections, openingHoursSpecification, type Menu } from '../../domain/sites/hours.ts'
import { MENU_HEADING } from '../../domain/sites/page-markdown.ts'

/** The schema.org graph of a page: who runs the site, the site itself, where the page sits, and its FAQ. */
export function jsonLd(site: RenderSite, page: RenderPage, url: string, homeUrl: string, homeTitle: string): unknown {
  const org = site.organization
  const orgId = `${site.origin}/#organization`
  const address = org.address
  const organization: Record<string, unknown> = {
    '@type': address || site.hours ? 'LocalBusiness' : 'Organization',
    '@id': orgId,
    name: org.name,
    url: `${site.origin}/`,
    ...(org.logo ? { logo: org.logo, image: org.logo } : {}),
    ...(org.email ? { email: org.email } : {}),
    ...(org.telephone ? { telephone: org.telephone } : {}),
    ...(org.social?.length ? { sameAs: org.social } : {}),
    ...(address
      ? {
          address: {
            '@type': 'PostalAddress',
            streetAddress: address.street,
            addressLocality: address.locality,
            ...(address.postal_code ? { postalCode: address.postal_code } : {}),
            addressCountry: address.country,
          },
        }
      : {}),
    ...(site.hours ? { openingHoursSpecification: openingHoursSpecification(site.hours) } : {}),
  }
  const website = {
    '@type': 'WebSite',
    '@id': `${site.origin}/#website`,
    name: site.name,
    url: `${site.origin}/`,
    inLanguage: site.locales,
    publisher: { '@id': orgId },
    ...(site.description ? { description: site.description } : {}),
  }
  const crumbs = [{ name: homeTitle, item: homeUrl }]
  if (url !== homeUrl) crumbs.push({ name: page.title, item: url })
  const breadcrumbs = {
    '@type': 'BreadcrumbList',
    itemListElement: crumbs.map((c, i) => ({ '@type': 'ListItem', position: i + 1, name: c.name, item: c.item })),
  }
  const webpage = {
    '@type': 'WebPage',
    '@id': url,
    url,
    name: page.title,
    description: page.description,
    inLanguage: page.locale,
    isPartOf: { '@id': `${site.origin}/#website` },
    dateModified: page.updatedAt.toISOString(),
  }
  const faqs = page.blocks.filter((b): b is Extract<Block, { type: 'faq' }> => b.type === 'faq').flatMap((b) => b.content.items)
  const faqPage = faqs.length
    ? [
        {
          '@type': 'FAQPage',
          mainEntity: faqs.map((q) => ({ '@type': 'Question', name: q.question, acceptedAnswer: { '@type': 'Answer', text: q.answer } })),
        },
      ]
    : []
  const menus = page.blocks
    .filter((b): b is Extract<Block, { type: 'menu' }> => b.type === 'menu')
    .map((b) => menuLd(b.content, page.locale, `${url}#menu`, orgId))
  return { '@context': 'https://schema.org', '@graph': [organization, website, webpage, breadcrumbs, ...faqPage, ...menus] }
}

/** A menu block as schema.org's Menu: its sections with their items, each price an Offer in the menu's currency. */
function menuLd(menu: Menu, locale: string, id: string, orgId: string): Record<string, unknown> {
  const currency = menu.currency ?? 'EUR'
  const item = (i: Menu['items'][number]) => ({
    '@type': 'MenuItem',
    name: i.name,
    ...(i.description ? { description: i.description } : {}),
    ...(i.price === undefined ? {} : { offers: { '@type': 'Offer', price: i.price.toFixed(2), priceCurrency: currency } }),
  })
  const sections = menuSections(menu)
  const loose = sections.filter((s) => s.title === undefined).flatMap((s) => s.items)
  const titled = sections.filter((s) => s.title !== undefined)
  return {
    '@type': 'Menu',
    '@id': id,
    name: menu.heading ?? MENU_HEADING[locale as keyof typeof MENU_HEADING],
    inLanguage: locale,
    provider: { '@id': orgId },
    ...(titled.length
      ? { hasMenuSection: titled.map((s) => ({ '@type': 'MenuSection', name: s.title, hasMenuItem: s.items.map(item) })) }
      : {}),
    ...(loose.length ? { hasMenuItem: loose.map(item) } : {}),
  }
}
