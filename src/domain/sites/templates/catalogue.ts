import { Type, type Static } from 'typebox'
import { literalUnion } from '../../../schemas.ts'
import { LOCALES, type Locale } from '../../locales.ts'
import { pathFromTitle } from '../page-paths.ts'
import type { PRESETS } from '../themes.ts'
import { BUSINESS_TYPES, SHARED, WORDS, type BusinessType } from './words.ts'

/**
 * The templates, one per business type (DESIGN.md 15): a theme preset, an illustration shipped
 * with the service, and five pages (home, what is offered, about, contact, legal) in de, en and
 * fr. `GET /v1/templates` lists them in one language.
 */

export { BUSINESS_TYPES, type BusinessType }

export interface Template {
  id: BusinessType
  preset: (typeof PRESETS)[number]['id']
  /** The file under src/sites/illustrations/ the home page's hero shows. */
  illustration: string
  /** What the offer page lists: a menu (items with optional prices) or features. */
  offer: 'menu' | 'features'
}

export const TEMPLATES: Record<BusinessType, Template> = {
  bakery: { id: 'bakery', preset: 'bakery', illustration: 'bakery.svg', offer: 'menu' },
  restaurant: { id: 'restaurant', preset: 'bistro', illustration: 'restaurant.svg', offer: 'menu' },
  salon: { id: 'salon', preset: 'salon', illustration: 'salon.svg', offer: 'menu' },
  trades: { id: 'trades', preset: 'workshop', illustration: 'trades.svg', offer: 'features' },
  consultant: { id: 'consultant', preset: 'studio', illustration: 'consultant.svg', offer: 'features' },
  shop: { id: 'shop', preset: 'fresh', illustration: 'shop.svg', offer: 'features' },
  health: { id: 'health', preset: 'practice', illustration: 'health.svg', offer: 'features' },
  club: { id: 'club', preset: 'meadow', illustration: 'club.svg', offer: 'features' },
}

export const TemplateId = literalUnion(BUSINESS_TYPES)

type PageKey = 'home' | 'offer' | 'about' | 'contact' | 'legal'

function titles(type: BusinessType, locale: Locale): Record<PageKey, string> {
  const shared = SHARED[locale]
  return {
    home: WORDS[type][locale].name,
    offer: WORDS[type][locale].offerTitle,
    about: shared.aboutTitle,
    contact: shared.contactTitle,
    legal: shared.legalTitle,
  }
}

/**
 * The pages of a template in a language. Their paths are made from the titles in the site's main
 * language (`pathLocale`), so a page and its translations share one path, as every page does.
 */
export function templatePages(type: BusinessType, locale: Locale, pathLocale: Locale = locale) {
  const shown = titles(type, locale)
  const named = titles(type, pathLocale)
  return (['home', 'offer', 'about', 'contact', 'legal'] as const).map((key) => ({
    key,
    title: shown[key],
    path: key === 'home' ? '/' : pathFromTitle(named[key], pathLocale),
  }))
}

/** Where a site's legal page lives: its title in the site's main language as a path (/impressum, /legal-notice). */
export function legalPath(defaultLocale: Locale): string {
  return pathFromTitle(SHARED[defaultLocale].legalTitle, defaultLocale)
}

const strict = { additionalProperties: false } as const
export const TemplateView = Type.Object(
  {
    id: TemplateId,
    business_type: TemplateId,
    name: Type.String(),
    description: Type.String(),
    preset: Type.String({ description: 'The theme preset a site made from it starts with (GET /v1/themes)' }),
    locales: Type.Array(literalUnion(LOCALES)),
    pages: Type.Array(Type.Object({ path: Type.String(), title: Type.String() }, strict), {
      description: 'The pages of a draft made from it, in the language asked; the home page takes the business’s name',
    }),
  },
  { ...strict, description: 'A template for one business type' },
)
export const TemplateList = Type.Object({ data: Type.Array(TemplateView) }, { ...strict, description: 'The templates' })

/** The catalogue in one language (names, descriptions, page titles). */
export function templateCatalogue(locale: Locale): Static<typeof TemplateList> {
  return {
    data: BUSINESS_TYPES.map((type) => ({
      id: type,
      business_type: type,
      name: WORDS[type][locale].name,
      description: WORDS[type][locale].description,
      preset: TEMPLATES[type].preset,
      locales: [...LOCALES],
      pages: templatePages(type, locale).map(({ path, title }) => ({ path, title })),
    })),
  }
}
