import { Type } from 'typebox'
import { BlockId, DateTime, PageId } from '../sites/views.ts'
import type { Media, MediaUse } from './media.ts'

/** The address path a stored file is served at on every host: `/_media/{id}/{width}.{ext}`. */
export function mediaPath(key: string): string {
  return `/_${key}`
}

export interface MediaVariantView {
  width: number
  height: number
  format: 'webp' | 'jpeg' | 'png'
  url: string
}

/** The media resource of /v1 (DESIGN.md 14); MCP and GraphQL answer the same fields. */
export interface MediaView {
  id: string
  filename: string
  content_type: string
  width: number
  height: number
  bytes: number
  alt: string
  url: string
  variants: MediaVariantView[]
  used_by: Array<{ page_id: string; block_id: string }>
  created_at: string
}

/** The variant a plain link shows: the largest in the original's family. */
export function largestVariant(media: Pick<Media, 'variants'>) {
  const widths = widthVariants(media)
  const family = widths.filter((v) => v.format !== 'webp')
  return (family.length ? family : widths).reduce((a, b) => (b.width > a.width ? b : a))
}

/** The image at its widths, without the files sites made from it (og:image, icons). */
export function widthVariants(media: Pick<Media, 'variants'>) {
  return media.variants.filter((v) => v.role === undefined)
}

export function mediaView(media: Media, uses: MediaUse[], origin: string): MediaView {
  return {
    id: media.id,
    filename: media.filename,
    content_type: media.contentType,
    width: media.width,
    height: media.height,
    bytes: media.bytes,
    alt: media.alt,
    url: origin + mediaPath(largestVariant(media).key),
    variants: widthVariants(media).map((v) => ({ width: v.width, height: v.height, format: v.format, url: origin + mediaPath(v.key) })),
    used_by: uses.map((u) => ({ page_id: u.pageId, block_id: u.blockId })),
    created_at: media.createdAt.toISOString(),
  }
}

// The resource's schema, shared by /v1 and the MCP tools.

const strict = { additionalProperties: false } as const

export const MediaId = Type.String({ pattern: '^med_[A-Za-z0-9_-]{8,64}$', description: 'med_…' })

export const MediaVariantSchema = Type.Object(
  {
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
    format: Type.Union([Type.Literal('webp'), Type.Literal('jpeg'), Type.Literal('png')]),
    url: Type.String({ description: 'Served with immutable caching on every host of the account’s sites' }),
  },
  strict,
)

export const MediaSchema = Type.Object(
  {
    id: MediaId,
    filename: Type.String(),
    content_type: Type.String({ description: 'The uploaded file’s type, as its bytes showed it' }),
    width: Type.Integer({ minimum: 1, description: 'Upright, after its EXIF orientation' }),
    height: Type.Integer({ minimum: 1 }),
    bytes: Type.Integer({ minimum: 1, description: 'Size of the uploaded file' }),
    alt: Type.String({ description: 'Text shown to people who cannot see the image' }),
    url: Type.String({ description: 'The largest variant in the original’s family' }),
    variants: Type.Array(MediaVariantSchema, {
      description: 'Widths 320 to 2560 (none wider than the original), each in WebP and JPEG or PNG',
    }),
    used_by: Type.Array(Type.Object({ page_id: PageId, block_id: BlockId }, strict), { description: 'The draft blocks that show it' }),
    created_at: DateTime,
  },
  { ...strict, title: 'Media' },
)

export const MediaPatch = Type.Object(
  {
    alt: Type.Optional(Type.String({ maxLength: 300 })),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { ...strict, minProperties: 1 },
)
