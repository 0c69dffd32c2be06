import type { CrawlerPurpose } from '../../domain/sites/ai-crawlers.ts'
import type { Locale } from '../../domain/locales.ts'
import type { ResolvedTheme } from '../../domain/sites/themes.ts'
import type { BlockContent } from '../../domain/sites/block-content.ts'
import type { Navigation } from '../../domain/sites/navigation.ts'

/** Block content by type, as DESIGN.md 7 pins it. */
export interface Link {
  label: string
  href: string
}
/** An image of the media library as a release shows it: its upright size and every variant's path. */
export interface RenderMedia {
  width: number
  height: number
  alt: string
  variants: Array<{ width: number; height: number; format: 'webp' | 'jpeg' | 'png'; path: string }>
  /** The 1200 × 630 cut for og:image, once made. */
  og?: string
  /** Square PNG icons made from a logo (32, 180, 192 and 512 pixels). */
  icons?: Array<{ size: number; path: string }>
}
/** An image by address (`src`) or from the library (`media_id`, resolved into `media` by the build). */
export interface Picture {
  src?: string
  alt?: string
  media_id?: string
  media?: RenderMedia
}
export type Block =
  | { type: 'hero'; content: { heading: string; subheading?: string; cta?: Link; image?: Picture } }
  | { type: 'text'; content: { markdown: string } }
  | { type: 'image'; content: Picture & { caption?: string } }
  | { type: 'gallery'; content: { heading?: string; images: Array<Picture & { caption?: string }> } }
  | { type: 'features'; content: { heading?: string; items: Array<{ title: string; text: string }> } }
  | { type: 'faq'; content: { heading?: string; items: Array<{ question: string; answer: string }> } }
  | { type: 'cta'; content: { heading: string; text?: string; label: string; href: string } }
  | { type: 'contact_form'; content: { heading?: string; submit_label?: string } }
  | { type: 'testimonial'; content: { quote: string; author: string; role?: string } }
  | { type: 'opening_hours'; content: BlockContent<'opening_hours'> }
  | { type: 'menu'; content: BlockContent<'menu'> }
  | { type: 'contact_details'; content: BlockContent<'contact_details'> }

export type BlockType = Block['type']

/** Which AI crawlers robots.txt lets in, by purpose. */
export type AiCrawlerChoices = Record<CrawlerPurpose, boolean>

/** What the JSON-LD says about who runs the site; LocalBusiness when there is a street address. */
export interface Organization {
  name: string
  logo?: string
  email?: string
  telephone?: string
  address?: { street: string; locality: string; postal_code?: string; country: string }
  /** Profiles on social networks (https addresses). */
  social?: string[]
  /** The commercial register entry and VAT number, for the Impressum. */
  register?: string
  vat_id?: string
}

/** The consent a contact form shows and hands back, per locale (src/domain/leads/consent.ts). */
export interface FormConsent {
  version: string
  text: string
  privacy: { label: string; url: string }
  digest: string
}

/** Everything a site contributes to its release, as plain data. */
export interface RenderSite {
  id: string
  name: string
  /** Absolute origin (and path prefix, for a preview) the release is canonical at, without a trailing slash. */
  origin: string
  defaultLocale: Locale
  locales: Locale[]
  /** Short description for llms.txt and the WebSite markup. */
  description?: string
  organization: Organization
  aiCrawlers: AiCrawlerChoices
  /**
   * The service's own origin; set only when the site's assistant is on (the widget script comes
   * from it, told the site by the host of `origin`).
   */
  widgetOrigin?: string
  /** The signed token contact forms carry (src/sites/forms). */
  formToken: string
  consent: Partial<Record<Locale, FormConsent>>
  /** How the pages look: colours at AA contrast, fonts, corners (src/domain/sites/themes.ts). */
  theme: ResolvedTheme
  /** The owner's menu; absent or null: home first, then by path (src/domain/sites/navigation.ts). */
  navigation?: Navigation | null
  /** The business's weekly hours: the first opening-hours block of the site's pages (set by renderSite). */
  hours?: BlockContent<'opening_hours'>
  /** The logo from the media library: it heads every page, and the favicon and touch icons are made from it. */
  logo?: RenderMedia
  /** Time the release is built, for sitemap lastmod defaults. */
  builtAt: Date
}

export interface RenderPage {
  /** Path inside its locale: '/' or '/about' (no trailing slash). */
  path: string
  locale: Locale
  title: string
  description: string
  updatedAt: Date
  blocks: Block[]
}

/** One file of a release, before compression. */
export interface RenderedFile {
  path: string
  contentType: string
  body: string
}
