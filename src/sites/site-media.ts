import { withDerivedFiles } from '../domain/media/derived.ts'
import { type Media, mediaByIds } from '../domain/media/media.ts'
import { mediaPath, widthVariants } from '../domain/media/views.ts'
import type { Db } from '../infra/db.ts'
import type { MediaStorage } from '../infra/media-storage.ts'
import { largestOf, picturesOf } from './render/picture.ts'
import type { Block, Picture, RenderMedia, RenderPage } from './render/index.ts'

/**
 * The media library's images in a site's pages (DESIGN.md 14): each `media_id` of a block is
 * resolved into the image's size, alt text and variants, and its `src` set to the largest one,
 * so the Markdown alternate, the passages and og:image read an address like any other. An id
 * the library no longer holds leaves the picture without an address, and the page without it.
 * A build (`storage` given) also makes what the release needs: the og:image cut of each page's
 * first image and the icons of the logo.
 */

function renderMedia(media: Media): RenderMedia {
  const og = media.variants.find((v) => v.role === 'og')
  const icons = media.variants.filter((v) => v.role === 'icon')
  return {
    width: media.width,
    height: media.height,
    alt: media.alt,
    variants: widthVariants(media).map((v) => ({ width: v.width, height: v.height, format: v.format, path: mediaPath(v.key) })),
    ...(og ? { og: mediaPath(og.key) } : {}),
    ...(icons.length ? { icons: icons.map((v) => ({ size: v.width, path: mediaPath(v.key) })) } : {}),
  }
}

function resolvePicture<P extends Picture>(picture: P, library: Map<string, RenderMedia>): P {
  if (!picture.media_id) return picture
  const media = library.get(picture.media_id)
  const { src: _unused, ...rest } = picture
  if (!media) return rest as P
  const largest = largestOf(media)
  return { ...rest, media, alt: picture.alt || media.alt, ...(largest ? { src: largest.path } : {}) } as P
}

function resolveBlock(block: Block, library: Map<string, RenderMedia>): Block {
  switch (block.type) {
    case 'hero':
      return block.content.image ? { ...block, content: { ...block.content, image: resolvePicture(block.content.image, library) } } : block
    case 'image':
      return { ...block, content: resolvePicture(block.content, library) }
    case 'gallery':
      return { ...block, content: { ...block.content, images: block.content.images.map((i) => resolvePicture(i, library)) } }
    default:
      return block
  }
}

/** The id of each page's first picture, when it is a library image: its og:image is cut from it. */
function firstMediaIds(pages: readonly RenderPage[]): string[] {
  return pages.flatMap((page) => {
    for (const block of page.blocks)
      for (const picture of picturesOf(block)) if (picture.media_id || picture.src) return picture.media_id ? [picture.media_id] : []
    return []
  })
}

export interface SiteMedia {
  pages: RenderPage[]
  logo: RenderMedia | undefined
  /** Every library image the pages and the logo show: the release records them (recordReleaseMedia). */
  mediaIds: string[]
}

export async function resolveSiteMedia(
  db: Db,
  accountId: string | null,
  pages: RenderPage[],
  logoId: string | undefined,
  storage?: MediaStorage,
): Promise<SiteMedia> {
  const ids = new Set(pages.flatMap((p) => p.blocks.flatMap((b) => picturesOf(b).flatMap((i) => (i.media_id ? [i.media_id] : [])))))
  if (logoId) ids.add(logoId)
  if (!accountId || ids.size === 0) return { pages, logo: undefined, mediaIds: [] }
  const found = await mediaByIds(db, accountId, [...ids])
  if (storage) {
    for (const id of new Set(firstMediaIds(pages))) {
      const media = found.get(id)
      if (media) found.set(id, await withDerivedFiles(db, storage, media, 'og'))
    }
    const logo = logoId ? found.get(logoId) : undefined
    if (logo) found.set(logo.id, await withDerivedFiles(db, storage, logo, 'icons'))
  }
  const library = new Map([...found].map(([id, media]) => [id, renderMedia(media)]))
  return {
    pages: pages.map((page) => ({ ...page, blocks: page.blocks.map((block) => resolveBlock(block, library)) })),
    logo: logoId ? library.get(logoId) : undefined,
    mediaIds: [...found.keys()],
  }
}
