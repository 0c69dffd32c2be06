import type { Block, RenderPage, RenderSite } from './types.ts'

/** The schema.org graph of a page: who runs the site, the site itself, where the page sits, and its FAQ. */
export function jsonLd(site: RenderSite, page: RenderPage, url: string, homeUrl: string, homeTitle: string): unknown {
  const org = site.organization
  const orgId = `${site.origin}/#organization`
  const address = org.address
  const organization: Record<string, unknown> = {
    '@type': address ? 'LocalBusiness' : 'Organization',
    '@id': orgId,
    name: org.name,
    url: `${site.origin}/`,
    ...(org.logo ? { logo: org.logo, image: org.logo } : {}),
    ...(org.email ? { email: org.email } : {}),
    ...(org.telephone ? { telephone: org.telephone } : {}),
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
  return { '@context': 'https://schema.org', '@graph': [organization, website, webpage, breadcrumbs, ...faqPage] }
}
