import { Type, type Static } from 'typebox'
import { BlockContents, checkBlockContent, type TypedBlock } from '../block-content.ts'
import type { Locale } from '../../locales.ts'
import { pageAddress } from '../pages.ts'
import { TEMPLATES, templatePages, TemplateId, type BusinessType } from './catalogue.ts'
import { SHARED, WORDS, type TypeWords } from './words.ts'

/**
 * The first draft (DESIGN.md 15): a template filled with the business's facts, the same for the
 * same facts and made without any network. Where a fact is missing its sentence or block is left
 * out (the legal page says what to add). The model's copy, when there is one (llm-copy.ts),
 * replaces only the headings, the about text and the FAQ, and only after it was checked.
 */

const strict = { additionalProperties: false } as const
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength })

export const Business = Type.Object(
  {
    type: TemplateId,
    name: Type.Optional(text(200)),
    city: Type.Optional(text(100)),
    description: Type.Optional(text(500)),
    phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40, pattern: '^\\+?[0-9][0-9 ()./-]*[0-9]$' })),
    email: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
    address: Type.Optional({ ...text(200), description: 'Street and number' }),
    postal_code: Type.Optional(text(20)),
    country: Type.Optional(text(100)),
    opening_hours: Type.Optional({ ...BlockContents.opening_hours, description: 'As the opening_hours block takes it' }),
  },
  { ...strict, description: 'Facts about the business; the first draft is made from them and says nothing else' },
)
export type Business = Static<typeof Business>

/** The words the model may write instead of the template's, per language (llm-copy.ts). */
export interface Copy {
  tagline: string
  intro: string
  about: string
  faq: Array<{ question: string; answer: string }>
}

export interface DraftPage {
  path: string
  locale: Locale
  title: string
  description: string
  blocks: TypedBlock[]
}

export interface Draft {
  template: BusinessType
  pages: DraftPage[]
  /** Who runs the site, for its footer, JSON-LD and legal pages (settings.hosting.organization). */
  organization: Record<string, unknown>
  /** Whether the model wrote the copy (false: the template's words). */
  written: boolean
}

export const ILLUSTRATION_PREFIX = '/_wps/assets/illustrations/'

function fill(template: string, facts: { name: string; inCity: string }): string {
  return template.replaceAll('{name}', facts.name).replaceAll('{in_city}', facts.inCity)
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`
}

/** The organization data a draft stores: only the facts given. */
function organizationOf(business: Business, name: string): Record<string, unknown> {
  const org: Record<string, unknown> = { name }
  if (business.email) org['email'] = business.email
  if (business.phone) org['telephone'] = business.phone
  if (business.address && business.city)
    org['address'] = {
      street: business.address,
      locality: business.city,
      ...(business.postal_code ? { postal_code: business.postal_code } : {}),
      ...(business.country ? { country: business.country } : {}),
    }
  return org
}

function contactLines(business: Business, locale: Locale): string {
  const lines = [
    business.address
      ? [business.address, [business.postal_code, business.city].filter(Boolean).join(' '), business.country].filter(Boolean).join(', ')
      : SHARED[locale].fillIn,
    business.phone ?? '',
    business.email ?? '',
  ].filter(Boolean)
  // Markdown line breaks: a line each, in one paragraph.
  return lines.map((l) => l.replace(/[\\`*_[\]<>#]/g, (c) => `\\${c}`)).join('  \n')
}

/** The pages of one language. */
function localePages(
  type: BusinessType,
  business: Business,
  name: string,
  locale: Locale,
  defaultLocale: Locale,
  copy: Copy | undefined,
): DraftPage[] {
  const template = TEMPLATES[type]
  const words: TypeWords = WORDS[type][locale]
  const shared = SHARED[locale]
  const facts = { name, inCity: business.city ? shared.inCity(business.city) : '' }
  const pages = templatePages(type, locale, defaultLocale)
  const at = (key: string) => pageAddress(defaultLocale, { locale, path: pages.find((p) => p.key === key)!.path })
  const hours = business.opening_hours
    ? [{ type: 'opening_hours', content: { ...business.opening_hours, heading: shared.hoursHeading } }]
    : []
  const contact =
    business.address || business.phone || business.email
      ? [
          {
            type: 'contact_details',
            content: {
              heading: shared.contactTitle,
              ...(business.address && business.city
                ? {
                    address: {
                      street: business.address,
                      locality: business.city,
                      ...(business.postal_code ? { postal_code: business.postal_code } : {}),
                      ...(business.country ? { country: business.country } : {}),
                    },
                  }
                : {}),
              ...(business.phone ? { phone: business.phone } : {}),
              ...(business.email ? { email: business.email } : {}),
            },
          },
        ]
      : []
  const lead = business.description ?? copy?.intro ?? words.intro
  const offers =
    template.offer === 'menu'
      ? { type: 'menu', content: { heading: words.offerHeading, items: words.offers.map((o) => ({ name: o.name, description: o.text })) } }
      : { type: 'features', content: { heading: words.offerHeading, items: words.offers.map((o) => ({ title: o.name, text: o.text })) } }
  const blocks: Record<string, Array<{ type: string; content: unknown }>> = {
    home: [
      {
        type: 'hero',
        content: {
          heading: clip(copy?.tagline ?? fill(words.tagline, facts), 200),
          subheading: clip(lead, 500),
          cta: { label: shared.offerCta, href: at('offer') },
          image: { src: `${ILLUSTRATION_PREFIX}${template.illustration}`, alt: '' },
        },
      },
      ...hours,
      { type: 'cta', content: { heading: shared.contactTitle, text: shared.contactIntro, label: shared.contactCta, href: at('contact') } },
    ],
    offer: [offers, { type: 'text', content: { markdown: shared.replaceOffers } }],
    about: [
      { type: 'text', content: { markdown: copy?.about ?? fill(words.about, facts) } },
      { type: 'faq', content: { heading: shared.faqHeading, items: copy?.faq ?? words.faq } },
    ],
    contact: [...contact, ...hours, { type: 'contact_form', content: { heading: shared.contactHeading } }],
    legal: [{ type: 'text', content: { markdown: fill(shared.legal, facts).replace('{contact}', contactLines(business, locale)) } }],
  }
  return pages.map((page) => ({
    path: page.path,
    locale,
    title: page.key === 'home' ? name : page.title,
    description: clip(page.key === 'home' ? lead : `${page.title} – ${name}`, 500),
    // Checked as /v1 checks a block: a template can never store what a client could not.
    blocks: blocks[page.key]!.map((b) => checkBlockContent(b.type as TypedBlock['type'], b.content)),
  }))
}

/**
 * The draft of a site from a template and facts, in each of the site's languages; `copy` holds
 * the model's words per language where it wrote them.
 */
export function makeDraft(
  type: BusinessType,
  business: Business,
  site: { name: string; locales: readonly Locale[]; defaultLocale: Locale },
  copy: Partial<Record<Locale, Copy>> = {},
): Draft {
  const name = business.name ?? site.name
  return {
    template: type,
    pages: site.locales.flatMap((locale) => localePages(type, business, name, locale, site.defaultLocale, copy[locale])),
    organization: organizationOf(business, name),
    written: Object.keys(copy).length > 0,
  }
}
