import { Type, type TOptional } from 'typebox'
import { BLOCK_TYPES } from './block-content.ts'
import { LOCALES } from '../locales.ts'
import { PAGE_PATH_PATTERN } from './pages.ts'
import { literalUnion } from '../../schemas.ts'
import { assistantFields, BuildId, Locale } from './views.ts'
import { ThemeInput } from './themes.ts'
import { MediaIdField } from './block-content.ts'
import { Navigation } from './navigation.ts'
import { Business } from './templates/draft.ts'
import { TemplateId } from './templates/catalogue.ts'

/**
 * What a client may send to create or change sites, pages, blocks and domains: the bodies /v1
 * validates (and documents), and the dashboard's forms and GraphQL's inputs are checked against,
 * so all refuse the same input.
 */

const strict = { additionalProperties: false } as const

// Sites

export const AssistantInput = Type.Object(
  Object.fromEntries(Object.entries(assistantFields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof assistantFields]: TOptional<(typeof assistantFields)[K]>
  },
  strict,
)

const Locales = Type.Array(Locale, { minItems: 1, maxItems: LOCALES.length, uniqueItems: true })
const SiteName = Type.String({ minLength: 1, maxLength: 200 })

export const NewSite = Type.Object(
  {
    name: SiteName,
    default_locale: Type.Optional(Locale),
    locales: Type.Optional(Locales),
    assistant: Type.Optional(AssistantInput),
    theme: Type.Optional(ThemeInput),
    navigation: Type.Optional(Navigation),
    template: Type.Optional({ ...TemplateId, description: 'Start from this template (GET /v1/templates): its pages, theme and words' }),
    business: Type.Optional(Business),
  },
  strict,
)
export const SitePatch = Type.Object(
  {
    name: Type.Optional(SiteName),
    subdomain: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        description: 'A new slug, alone or as the full host {slug}.{SITES_DOMAIN}; served at once, the old subdomain stops answering',
      }),
    ),
    status: Type.Optional(literalUnion(['live', 'offline'] as const)),
    default_locale: Type.Optional(Locale),
    locales: Type.Optional(Locales),
    assistant: Type.Optional(AssistantInput),
    theme: Type.Optional(ThemeInput),
    logo_media_id: Type.Optional(
      Type.Union([MediaIdField, Type.Null()], {
        description:
          'The logo, an image of the media library: it heads every page, and the favicon and touch icons are made from it; null removes it',
      }),
    ),
    navigation: Type.Optional(Navigation),
  },
  { ...strict, minProperties: 1 },
)

// Pages

const pathRules = { minLength: 1, maxLength: 200, pattern: PAGE_PATH_PATTERN }
const PagePath = Type.String({
  ...pathRules,
  description: '"/" or lower-case segments such as /about/team',
})
const PageTitle = Type.String({ minLength: 1, maxLength: 200 })
const PageDescription = Type.String({ maxLength: 500 })

export const NewPage = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        ...pathRules,
        description: '"/" or lower-case segments such as /about/team; made from the title when not given (transliterated, unique)',
      }),
    ),
    locale: Type.Optional(Locale),
    title: PageTitle,
    description: Type.Optional(PageDescription),
  },
  strict,
)
export const PagePatch = Type.Object(
  {
    path: Type.Optional(PagePath),
    locale: Type.Optional(Locale),
    title: Type.Optional(PageTitle),
    description: Type.Optional(PageDescription),
  },
  { ...strict, minProperties: 1 },
)

// Blocks

export const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'From 0; the blocks from there move down' })
export const BlockType = literalUnion(BLOCK_TYPES)

/** Content is checked against the block's type by the domain (400 invalid_block_content names the field). */
const AnyContent = Type.Object({}, { additionalProperties: true, description: 'The content of the block’s type; see the Block schema' })
export const NewBlock = Type.Object({ type: BlockType, content: AnyContent, position: Type.Optional(Position) }, strict)
export const BlockPatch = Type.Object(
  { type: Type.Optional(BlockType), content: Type.Optional(AnyContent), position: Type.Optional(Position) },
  { ...strict, minProperties: 1, description: 'A new type needs new content; position moves the block' },
)

// Builds

export const Rollback = Type.Object({ build_id: BuildId }, strict)

// Domains

export const NewDomain = Type.Object(
  {
    hostname: Type.String({ minLength: 1, maxLength: 253 }),
    primary: Type.Optional(Type.Boolean({ description: 'Make it the site’s primary domain (the first one is).' })),
  },
  strict,
)
