import { Type, type Static, type TSchema } from 'typebox'
import { literalUnion } from '../../schemas.ts'
import { BLOCK_TYPES, BlockContents } from './block-content.ts'
import type { BlockView } from './blocks.ts'
import type { Lead as LeadRecord } from '../leads/leads.ts'
import { LOCALES } from '../locales.ts'
import type { Page as PageRow } from './pages.ts'
import { assistantView, siteLogoId } from './settings.ts'
import { Theme, themeView } from './themes.ts'
import { Navigation, navigationOf } from './navigation.ts'
import type { SiteRecord } from './sites.ts'
import { subdomainHost, type SubdomainConfig } from './subdomains.ts'

/**
 * The site-content resources as clients see them (DESIGN.md 7 "Fields"): the TypeBox schemas and
 * the functions that make a row into that shape. /v1 and the MCP tools answer the same fields.
 */

const strict = { additionalProperties: false } as const
export const DateTime = Type.String({ format: 'date-time' })
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** A prefixed id; the tail is the random part (older rows may carry a longer hex tail). */
const id = (prefix: string) => Type.String({ pattern: `^${prefix}_[A-Za-z0-9_-]{8,64}$`, description: `${prefix}_…` })
export const SiteId = id('site')
export const PageId = id('page')
export const BlockId = id('blk')
export const DomainId = id('dom')
export const BuildId = id('bld')
export const LeadId = id('lead')

export const Locale = literalUnion(LOCALES)

export const assistantFields = {
  enabled: Type.Boolean(),
  persona: nullable(Type.String({ minLength: 1, maxLength: 60 })),
  booking_url: nullable(
    Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 500,
      description: 'Where the assistant sends visitors to book; null: no booking.',
    }),
  ),
  lead: Type.Boolean({ description: 'The assistant takes leads (with consent).' }),
  handoff: Type.Boolean({ description: 'Visitors may ask for a person (the conversations inbox).' }),
}
export const Assistant = Type.Object(assistantFields, { ...strict, description: 'The site’s sales assistant' })

export const Site = Type.Object(
  {
    id: SiteId,
    name: Type.String(),
    domain: nullable(Type.String({ description: 'The primary active hostname' })),
    subdomain: Type.String({
      description: 'The platform subdomain {slug}.{SITES_DOMAIN}, served from creation without DNS; PATCH it to change the slug',
    }),
    status: literalUnion(['draft', 'live', 'offline'] as const),
    default_locale: Locale,
    locales: Type.Array(Locale),
    assistant: Assistant,
    theme: Theme,
    logo_media_id: nullable(Type.String({ pattern: '^med_[A-Za-z0-9_-]{8,64}$', description: 'The logo, an image of the media library' })),
    navigation: nullable(Navigation),
    preview_url: Type.String({ format: 'uri', description: 'The latest build under {base_url}/s/{site_id}/' }),
    url: nullable(Type.String({ format: 'uri', description: 'https://{domain}/, or null without an active domain' })),
    created_at: DateTime,
    updated_at: DateTime,
    published_at: nullable(DateTime),
  },
  { ...strict, description: 'A site' },
)

export const Page = Type.Object(
  {
    id: PageId,
    site_id: SiteId,
    path: Type.String(),
    locale: Locale,
    title: Type.String(),
    description: Type.String(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { ...strict, description: 'A page of a site' },
)

/** A block as a discriminated union on `type`, each type with its own content. */
export const Block = Type.Unsafe<BlockView>(
  Type.Union(
    BLOCK_TYPES.map((type) =>
      Type.Object(
        { id: BlockId, page_id: PageId, type: Type.Literal(type), position: Type.Integer({ minimum: 0 }), content: BlockContents[type] },
        { ...strict, title: `${type} block` },
      ),
    ),
    { description: 'A block of a page; content by type' },
  ),
)

export const Domain = Type.Object(
  {
    id: DomainId,
    site_id: SiteId,
    hostname: Type.String(),
    status: literalUnion(['pending', 'active', 'failed'] as const),
    primary: Type.Boolean(),
    verification: Type.Object(
      { type: Type.Literal('TXT'), name: Type.String(), value: Type.String() },
      { ...strict, description: 'Publish this TXT record, then POST …/verify' },
    ),
    verified_at: nullable(DateTime),
    failure_reason: nullable(
      Type.Object(
        {
          code: literalUnion(['no_record', 'wrong_value', 'lookup_failed', 'hostname_taken'] as const),
          detail: Type.String({ description: 'What was found, in words; a failed lookup names the resolvers asked' }),
        },
        {
          ...strict,
          description:
            'Why the last verification failed (status failed): no TXT record, a record without the value, a failed lookup, or the hostname active on another site; null otherwise',
        },
      ),
    ),
  },
  { ...strict, description: 'A domain of a site' },
)

export const Build = Type.Object(
  {
    id: BuildId,
    site_id: SiteId,
    status: literalUnion(['queued', 'running', 'succeeded', 'failed'] as const),
    error: nullable(Type.String()),
    pages: nullable(Type.Integer({ minimum: 0 })),
    started_at: nullable(DateTime),
    finished_at: nullable(DateTime),
  },
  { ...strict, description: 'A build of a site' },
)

export const LeadStatus = literalUnion(['new', 'answered', 'archived'] as const, {
  description: 'new until someone answers it (answered) or puts it away (archived)',
})

export const Lead = Type.Object(
  {
    id: LeadId,
    site_id: SiteId,
    source: literalUnion(['assistant', 'contact_form'] as const),
    status: LeadStatus,
    email: Type.String(),
    name: nullable(Type.String()),
    note: nullable(Type.String()),
    consent: Type.Object(
      { version: Type.String(), locale: Locale, digest: Type.String(), given_at: DateTime },
      { ...strict, description: 'The consent the visitor gave' },
    ),
    created_at: DateTime,
  },
  { ...strict, description: 'A lead' },
)

/** Where the service serves a site's latest build. */
export function previewUrl(baseUrl: string, siteId: string): string {
  return `${baseUrl}/s/${siteId}/`
}

/** A site as clients see it; its preview lives under the service's own origin, its subdomain under SITES_DOMAIN. */
export function siteView(site: SiteRecord, config: SubdomainConfig): Static<typeof Site> {
  return {
    id: site.id,
    name: site.name,
    domain: site.domain,
    subdomain: subdomainHost(site.slug, config.SITES_DOMAIN),
    status: site.status,
    default_locale: site.default_locale,
    locales: site.locales,
    assistant: assistantView(site.settings),
    theme: themeView(site.settings),
    logo_media_id: siteLogoId(site.settings) ?? null,
    navigation: navigationOf(site.settings),
    preview_url: previewUrl(config.BASE_URL, site.id),
    url: site.domain === null ? null : `https://${site.domain}/`,
    created_at: site.created_at.toISOString(),
    updated_at: site.updated_at.toISOString(),
    published_at: site.published_at?.toISOString() ?? null,
  }
}

export function pageView(page: PageRow): Static<typeof Page> {
  return {
    id: page.id,
    site_id: page.site_id,
    path: page.path,
    locale: page.locale,
    title: page.title,
    description: page.description,
    created_at: page.created_at.toISOString(),
    updated_at: page.updated_at.toISOString(),
  }
}

/** A lead with its personal fields opened for this answer only (they are sealed at rest). */
export function leadView(lead: LeadRecord): Static<typeof Lead> {
  return {
    id: lead.id,
    site_id: lead.siteId,
    source: lead.source,
    status: lead.status,
    email: lead.email,
    name: lead.name,
    note: lead.note,
    consent: {
      version: lead.consent.version,
      locale: lead.consent.locale,
      digest: lead.consent.digest,
      given_at: lead.consent.acceptedAt.toISOString(),
    },
    created_at: lead.createdAt.toISOString(),
  }
}
