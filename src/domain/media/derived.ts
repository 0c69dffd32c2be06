import type { Db } from '../../infra/db.ts'
import { lowerImageThreads } from '../../infra/thread-priority.ts'
import type { MediaStorage, StoredFile } from '../../infra/media-storage.ts'
import type { MediaVariantRow } from '../../infra/tables.ts'
import { withTransaction } from '../transaction.ts'
import { loadSharp } from './images.ts'
import { type Media, mediaByIds } from './media.ts'
import { largestVariant } from './views.ts'

/**
 * Files a site makes from an image of its library (DESIGN.md 14): the Open Graph image, cut to
 * 1200 × 630 from a page's first image, and the favicon and touch icons, square PNGs made from
 * the logo. Made by the build the first time a release needs them, from the largest variant
 * (already upright and without metadata), and kept beside the variants with a `role`, so every
 * later release and every host serves the same files.
 */

export const OG_WIDTH = 1200
export const OG_HEIGHT = 630
export const ICON_SIZES = [32, 180, 192, 512] as const

export type DerivedKind = 'og' | 'icons'

function missing(media: Media, kind: DerivedKind): boolean {
  return kind === 'og' ? !media.variants.some((v) => v.role === 'og') : !media.variants.some((v) => v.role === 'icon')
}

async function makeFiles(source: Buffer, mediaId: string, kind: DerivedKind): Promise<Array<StoredFile & { row: MediaVariantRow }>> {
  const sharp = await loadSharp()
  if (kind === 'og') {
    const body = await sharp(source).resize(OG_WIDTH, OG_HEIGHT, { fit: 'cover', position: 'attention' }).jpeg({ quality: 82 }).toBuffer()
    const key = `media/${mediaId}/og-${OG_WIDTH}.jpg`
    return [
      {
        key,
        contentType: 'image/jpeg',
        body,
        row: { width: OG_WIDTH, height: OG_HEIGHT, format: 'jpeg', bytes: body.length, key, role: 'og' },
      },
    ]
  }
  return Promise.all(
    ICON_SIZES.map(async (size) => {
      const body = await sharp(source)
        .resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .png()
        .toBuffer()
      const key = `media/${mediaId}/icon-${size}.png`
      return {
        key,
        contentType: 'image/png',
        body,
        row: { width: size, height: size, format: 'png' as const, bytes: body.length, key, role: 'icon' as const },
      }
    }),
  )
}

/**
 * The items with the files of `kind` made where they lack them. The row is locked while its
 * files are added, so two builds at once make them once. An item whose largest variant cannot
 * be read is answered as it is (the release then uses its variants).
 */
export async function withDerivedFiles(db: Db, storage: MediaStorage, media: Media, kind: DerivedKind): Promise<Media> {
  if (!missing(media, kind)) return media
  const source = await storage.read(db, largestVariant(media).key)
  if (!source) return media
  // Threads libvips started for these go below the event loop, as an upload's do (thread-priority.ts).
  const files = await makeFiles(source, media.id, kind).finally(lowerImageThreads)
  const added = files.reduce((sum, f) => sum + f.body.length, 0)
  await withTransaction(db, async (trx) => {
    const locked = await trx.selectFrom('media').select('variants').where('id', '=', media.id).forUpdate().executeTakeFirst()
    if (!locked) return
    const variants: MediaVariantRow[] = typeof locked.variants === 'string' ? JSON.parse(locked.variants) : locked.variants
    if (variants.some((v) => v.key === files[0]!.key)) return
    await storage.write(trx, media.id, files)
    await trx
      .updateTable('media')
      .set((eb) => ({
        variants: JSON.stringify([...variants, ...files.map((f) => f.row)]),
        stored_bytes: eb('stored_bytes', '+', added),
      }))
      .where('id', '=', media.id)
      .execute()
  })
  return (await mediaByIds(db, media.accountId, [media.id])).get(media.id) ?? media
}
