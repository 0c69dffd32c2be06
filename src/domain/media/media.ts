import { sql, type Selectable } from 'kysely'
import { errors } from '../../errors.ts'
import { createHash } from 'node:crypto'
import { newTimeOrderedId } from '../../infra/crypto.ts'
import type { Db } from '../../infra/db.ts'
import type { MediaStorage, StoredFile } from '../../infra/media-storage.ts'
import type { MediaTable, MediaVariantRow } from '../../infra/tables.ts'
import { entitlementsOf } from '../accounts/add-ons.ts'
import { markChanged } from '../accounts/changes.ts'
import { planRefused } from '../accounts/plan-refusals.ts'
import { cheapestPlan, planEntitlements } from '../accounts/entitlements.ts'
import { withTransaction } from '../transaction.ts'
import { processingGate } from './gate.ts'
import { EXTENSIONS, processImage, type ProcessedImage, type VariantFormat } from './images.ts'
import type { Paging } from '../paging.ts'

/**
 * The media library (DESIGN.md 14): the images of an account, each stored once (by its
 * SHA-256), made into variants at upload and kept in the database or object storage. Every
 * interface (the dashboard, /v1, MCP, GraphQL) and the site builds call these functions; the
 * account's export and deletion read the same ones.
 */

export type MediaRow = Selectable<MediaTable>

export interface Media {
  id: string
  accountId: string
  filename: string
  contentType: string
  width: number
  height: number
  bytes: number
  storedBytes: number
  sha256: string
  alt: string
  variants: MediaVariantRow[]
  createdBy: string | null
  createdAt: Date
}

export interface MediaUse {
  pageId: string
  blockId: string
}

// Storage is counted as the price list says it: 1 MB = 10^6 bytes, 1 GB = 1000 MB.
const MB = 1_000_000

function toMedia(row: MediaRow): Media {
  return {
    id: row.id,
    accountId: row.account_id,
    filename: row.filename,
    contentType: row.content_type,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    storedBytes: row.stored_bytes,
    sha256: row.sha256,
    alt: row.alt,
    variants: typeof row.variants === 'string' ? (JSON.parse(row.variants) as MediaVariantRow[]) : row.variants,
    createdBy: row.created_by,
    createdAt: row.created_at,
  }
}

/** Where a variant's bytes are kept, and the last part of its public address. */
export function variantKey(mediaId: string, width: number, format: VariantFormat): string {
  return `media/${mediaId}/${width}.${EXTENSIONS[format]}`
}

/** The name a file is listed under: its last path segment, printable, at most 200 characters. */
export function cleanFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200)
  return clean || fallback
}

export interface NewMedia {
  accountId: string
  /** Who uploaded it: a person (`usr_…`), or the token or client that acted. */
  createdBy: string | null
  filename?: string | undefined
  alt?: string | undefined
  bytes: Buffer
}

export interface StoredMedia {
  media: Media
  /** False when the account already had these exact bytes: the stored item is answered. */
  created: boolean
}

function megabytes(bytes: number): string {
  if (bytes >= 1000 * MB) return `${+(bytes / 1000 / MB).toFixed(1)} GB`
  return `${+(bytes / MB).toFixed(1)} MB`
}

/** The account's stored media bytes, removed items that releases still show included. */
export async function storageUsed(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('media')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('stored_bytes'), sql<number>`0`).as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Where the account stands against its plan's storage. */
export async function storageUsage(db: Db, accountId: string): Promise<{ usedBytes: number; limitBytes: number }> {
  const limits = await entitlementsOf(db, accountId)
  if (!limits) throw new errors.notFound(`No account ${accountId}`)
  return { usedBytes: await storageUsed(db, accountId), limitBytes: planEntitlements(limits.plan).storageMb * MB }
}

/** Refuses what would take the account past its plan's storage (403 plan_limit naming the plan that holds more). Locks the account row. */
async function assertStorageAllowed(trx: Db, accountId: string, adding: number): Promise<void> {
  const limits = await entitlementsOf(trx, accountId, { lock: true })
  if (!limits) throw new errors.notFound(`No account ${accountId}`)
  const limit = planEntitlements(limits.plan).storageMb * MB
  const used = await storageUsed(trx, accountId)
  if (used + adding <= limit) return
  const bigger = cheapestPlan((e) => e.storageMb * MB >= used + adding)
  throw planRefused(
    'plan_limit',
    `The account ${accountId} is on plan ${limits.plan}, which stores ${megabytes(limit)} of photos, and uses ${megabytes(used)}; ` +
      `this photo needs ${megabytes(adding)} more. ${bigger ? `Plan ${bigger} stores ${megabytes(planEntitlements(bigger).storageMb * MB)}` : 'No plan stores more'}; or delete photos you no longer use`,
    { about: 'storage', plan: limits.plan, allowedMb: limit / MB, usedMb: used / MB },
  )
}

function filesOf(mediaId: string, image: ProcessedImage): { files: StoredFile[]; variants: MediaVariantRow[] } {
  const files: StoredFile[] = []
  const variants: MediaVariantRow[] = []
  for (const v of image.variants) {
    const key = variantKey(mediaId, v.width, v.format)
    files.push({ key, contentType: `image/${v.format}`, body: v.body })
    variants.push({ width: v.width, height: v.height, format: v.format, bytes: v.body.length, key })
  }
  return { files, variants }
}

async function findBySha(db: Db, accountId: string, sha256: string): Promise<MediaRow | undefined> {
  return db.selectFrom('media').selectAll().where('account_id', '=', accountId).where('sha256', '=', sha256).executeTakeFirst()
}

/** An upload checked and made into variants, ready to be saved (see prepareMedia). */
export interface PreparedMedia {
  input: NewMedia
  sha256: string
  /** The same bytes are in the account's library, or were removed from it while a release shows them. */
  known: MediaRow | undefined
  image: ProcessedImage | undefined
}

/**
 * The slow half of an upload, outside any transaction: the same bytes already stored are found,
 * anything else is checked and processed (waiting for a free core). Refusals are thrown here.
 */
export async function prepareMedia(db: Db, input: NewMedia): Promise<PreparedMedia> {
  const sha256 = createHash('sha256').update(input.bytes).digest('hex')
  const known = await findBySha(db, input.accountId, sha256)
  if (known) return { input, sha256, known, image: undefined }
  return { input, sha256, known, image: await processingGate.run(() => processImage(input.bytes)) }
}

/**
 * The quick half: refuses it over the plan's storage, then writes the row and its variants, in
 * `db`'s transaction when it is one (a /v1 change with its audit record). A failure stores
 * nothing: no row, no file.
 */
export async function saveMedia(db: Db, storage: MediaStorage, prepared: PreparedMedia): Promise<StoredMedia> {
  const { input, known, image, sha256 } = prepared
  const alt = (input.alt ?? '').trim()
  if (known && known.deleted_at === null) return { media: toMedia(known), created: false }
  if (known) {
    // Removed from the library while a release still showed it: its files are still there.
    const row = await db
      .updateTable('media')
      .set({ deleted_at: null, filename: cleanFilename(input.filename, known.filename), alt: alt || known.alt })
      .where('id', '=', known.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { media: toMedia(row), created: true }
  }
  if (!image) throw new Error('saveMedia needs a prepared image')
  const filename = cleanFilename(input.filename, `image.${image.format === 'jpeg' ? 'jpg' : image.format}`)
  const id = newTimeOrderedId('med')
  const { files, variants } = filesOf(id, image)
  const storedBytes = variants.reduce((sum, v) => sum + v.bytes, 0)
  try {
    const row = await withTransaction(db, async (trx) => {
      await assertStorageAllowed(trx, input.accountId, storedBytes)
      const inserted = await trx
        .insertInto('media')
        .values({
          id,
          account_id: input.accountId,
          filename,
          content_type: image.contentType,
          width: image.width,
          height: image.height,
          bytes: input.bytes.length,
          stored_bytes: storedBytes,
          sha256,
          alt,
          variants: JSON.stringify(variants),
          created_by: input.createdBy,
        })
        .onConflict((oc) => oc.columns(['account_id', 'sha256']).doNothing())
        .returningAll()
        .executeTakeFirst()
      if (inserted) await storage.write(trx, id, files)
      return inserted
    })
    if (row) return { media: toMedia(row), created: true }
  } catch (error) {
    if (storage.kind !== 'database')
      await storage
        .remove(
          db,
          files.map((f) => f.key),
        )
        .catch(() => undefined)
    throw error
  }
  // The same bytes were stored by a concurrent upload in the meantime.
  const raced = await findBySha(db, input.accountId, sha256)
  if (!raced) throw new errors.conflict('The upload met a concurrent change; send it again')
  return { media: toMedia(raced), created: false }
}

/**
 * Stores an upload: checked and processed, refused over the plan's storage, then its row and
 * variants written. The same bytes again answer the item already stored (brought back to the
 * library if it had been removed).
 */
export async function storeMedia(db: Db, storage: MediaStorage, input: NewMedia): Promise<StoredMedia> {
  return saveMedia(db, storage, await prepareMedia(db, input))
}

/** One item of the account's library; undefined for another account's, a removed one, or none. */
export async function getMedia(db: Db, accountId: string, id: string): Promise<Media | undefined> {
  const row = await db
    .selectFrom('media')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return row ? toMedia(row) : undefined
}

/** Several items of one account by id, removed ones included (a release may still show them). */
export async function mediaByIds(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, Media>> {
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('media')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute()
  return new Map(rows.map((row) => [row.id, toMedia(row)]))
}

/** The ids of `ids` the account's library does not hold (none such, another account's, removed). */
export async function missingMedia(db: Db, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const unique = [...new Set(ids)]
  const rows = await db
    .selectFrom('media')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', unique)
    .where('deleted_at', 'is', null)
    .execute()
  const held = new Set(rows.map((r) => r.id))
  return unique.filter((id) => !held.has(id))
}

/** What a refusal of a missing image says, the same whichever way it is missing. */
export function notInLibrary(missing: readonly string[]): string {
  return `The media library has no image ${missing.join(', ')}: upload it first (POST /v1/media) and use the id it answers`
}

/** The account's library, newest first. */
export async function listMedia(db: Db, accountId: string, paging: Paging): Promise<{ items: Media[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('media')
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(paging.limit)
      .offset(paging.offset)
      .execute(),
    // Kept by a trigger (migration media-counts): one row, however large the library.
    db.selectFrom('media_counts').select('live').where('account_id', '=', accountId).executeTakeFirst(),
  ])
  return { items: rows.map(toMedia), total: count?.live ?? 0 }
}

export interface MediaChange {
  alt?: string | undefined
  filename?: string | undefined
}

/** Changes an item's alt text or name; undefined when the account has no such item. */
export async function updateMedia(db: Db, accountId: string, id: string, change: MediaChange): Promise<Media | undefined> {
  const set: { alt?: string; filename?: string } = {}
  if (change.alt !== undefined) set.alt = change.alt.trim()
  if (change.filename !== undefined) {
    const filename = cleanFilename(change.filename, '')
    if (!filename) throw new errors.validationFailed('filename must have a visible character')
    set.filename = filename
  }
  if (Object.keys(set).length === 0) return getMedia(db, accountId, id)
  const row = await db
    .updateTable('media')
    .set(set)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
  return row ? toMedia(row) : undefined
}

/**
 * Where each of the items is used in the account's drafts: the blocks whose content names it
 * (an image, a hero, a gallery, or any block to come), and the sites whose logo it is
 * (page_id and block_id null). Matched on the id's text, which is unique and random.
 */
export async function mediaUsage(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, MediaUse[]>> {
  const uses = new Map<string, MediaUse[]>(ids.map((id) => [id, []]))
  if (ids.length === 0) return uses
  const rows = await db
    .selectFrom('blocks')
    .innerJoin('pages', 'pages.id', 'blocks.page_id')
    .innerJoin('sites', 'sites.id', 'pages.site_id')
    .select(['blocks.id as block_id', 'blocks.page_id', sql<string>`blocks.content::text`.as('content')])
    .where('sites.account_id', '=', accountId)
    .where((eb) => eb.or(ids.map((id) => eb(sql`position(${id} in blocks.content::text)`, '>', 0))))
    .orderBy('pages.id')
    .orderBy('blocks.position')
    .execute()
  for (const row of rows) {
    for (const id of ids) if (row.content.includes(id)) uses.get(id)!.push({ pageId: row.page_id, blockId: row.block_id })
  }
  return uses
}

/** The sites of the account whose settings name the item (their logo). */
export async function sitesUsingMedia(db: Db, accountId: string, id: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sites')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql`position(${id} in settings::text)`, '>', 0)
    .execute()
  return rows.map((r) => r.id)
}

/**
 * Removes an item from the library. Refused with 409 media_in_use, naming the pages, while a
 * draft uses it (or a site's logo is it). Kept, out of the library, while a release shows it
 * (its files stay served for that release); otherwise its row and files go at once.
 * Undefined when the account has no such item.
 */
export async function deleteMedia(db: Db, storage: MediaStorage, accountId: string, id: string): Promise<true | undefined> {
  const media = await getMedia(db, accountId, id)
  if (!media) return undefined
  const uses = (await mediaUsage(db, accountId, [id])).get(id) ?? []
  const logos = await sitesUsingMedia(db, accountId, id)
  if (uses.length || logos.length) {
    const pages = [...new Set(uses.map((u) => u.pageId))]
    const where = [
      pages.length ? `page${pages.length > 1 ? 's' : ''} ${pages.join(', ')}` : '',
      logos.length ? `the logo of ${logos.join(', ')}` : '',
    ]
    throw new errors.mediaInUse(`The photo ${id} is used on ${where.filter(Boolean).join(' and ')}; take it out there first`)
  }
  const shown = await db.selectFrom('build_media').select('build_id').where('media_id', '=', id).executeTakeFirst()
  if (shown) {
    await db.updateTable('media').set({ deleted_at: new Date() }).where('id', '=', id).execute()
    markChanged(id)
    return true
  }
  await removeMediaNow(db, storage, media)
  return true
}

/** Deletes an item's row and files outright (the account's deletion, or nothing refers to it any more). */
export async function removeMediaNow(db: Db, storage: MediaStorage, media: Pick<Media, 'id' | 'variants'>): Promise<void> {
  await db.deleteFrom('media').where('id', '=', media.id).execute()
  // The answers this process remembers of its files (src/sites/media-files.ts) are stale now.
  markChanged(media.id)
  if (storage.kind !== 'database')
    await storage.remove(
      db,
      media.variants.map((v) => v.key),
    )
}

/**
 * Removes every file of the account's media kept outside the database (object storage), for the
 * account's erase: its rows go with the account's other rows (their database files with them).
 */
export async function removeAccountFiles(db: Db, storage: MediaStorage, accountId: string): Promise<void> {
  if (storage.kind === 'database') return
  const rows = await db.selectFrom('media').select('variants').where('account_id', '=', accountId).execute()
  const keys = rows.flatMap((row) => (typeof row.variants === 'string' ? (JSON.parse(row.variants) as MediaVariantRow[]) : row.variants))
  await storage.remove(
    db,
    keys.map((v) => v.key),
  )
}

/**
 * Items removed from the library that no release shows any more: their rows and files go.
 * Run after old builds are deleted; answers how many went.
 */
export async function purgeUnshownMedia(db: Db, storage: MediaStorage, accountId?: string): Promise<number> {
  let query = db
    .selectFrom('media')
    .select(['id', 'variants'])
    .where('deleted_at', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('build_media').select('build_id').whereRef('build_media.media_id', '=', 'media.id'))),
    )
  if (accountId) query = query.where('account_id', '=', accountId)
  const rows = await query.execute()
  for (const row of rows) {
    await removeMediaNow(db, storage, { id: row.id, variants: typeof row.variants === 'string' ? JSON.parse(row.variants) : row.variants })
  }
  return rows.length
}

/** A file's bytes by its key (`media/{id}/{width}.{ext}`), whichever storage holds them. */
export async function getMediaBytes(db: Db, storage: MediaStorage, key: string): Promise<Buffer | undefined> {
  return storage.read(db, key)
}

/** Records which media a release shows, so removing it from the library keeps it served. */
export async function recordReleaseMedia(db: Db, buildId: string, mediaIds: readonly string[]): Promise<void> {
  if (mediaIds.length === 0) return
  await db
    .insertInto('build_media')
    .values([...new Set(mediaIds)].map((media_id) => ({ build_id: buildId, media_id })))
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/**
 * Whether a stored file may be served, and its type: on a site's host, an item of the site's
 * account that is in the library or that the live release shows; on the service's own host (the
 * dashboard, the preview, the API's links), an item in a library or shown by any release.
 */
export async function servableFile(
  db: Db,
  mediaId: string,
  file: string,
  where: { siteId: string; buildId: string } | undefined,
): Promise<{ key: string; contentType: string } | undefined> {
  let query = db.selectFrom('media').select(['id', 'variants', 'deleted_at']).where('id', '=', mediaId)
  if (where) query = query.where('account_id', '=', (eb) => eb.selectFrom('sites').select('account_id').where('id', '=', where.siteId))
  const row = await query.executeTakeFirst()
  if (!row) return undefined
  const variants: MediaVariantRow[] = typeof row.variants === 'string' ? JSON.parse(row.variants) : row.variants
  const key = `media/${mediaId}/${file}`
  const variant = variants.find((v) => v.key === key)
  if (!variant) return undefined
  if (row.deleted_at !== null) {
    let shown = db.selectFrom('build_media').select('build_id').where('media_id', '=', mediaId)
    if (where) shown = shown.where('build_id', '=', where.buildId)
    if (!(await shown.executeTakeFirst())) return undefined
  }
  return { key, contentType: `image/${variant.format}` }
}
