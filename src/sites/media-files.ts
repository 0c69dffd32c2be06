import type { FastifyReply, FastifyRequest } from 'fastify'
import { getMediaBytes, servableFile } from '../domain/media/media.ts'
import { errors } from '../errors.ts'
import type { Db } from '../infra/db.ts'
import type { MediaStorage } from '../infra/media-storage.ts'

/** Where the media library's files are served on every host: `/_media/{media_id}/{width}.{ext}`. */
export const MEDIA_PREFIX = '/_media/'

const FILE = /^\/_media\/(med_[A-Za-z0-9_-]{8,64})\/((?:og-|icon-)?\d{1,5}\.(?:webp|jpg|png))$/

const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * The bytes of recently served files, up to `maxBytes`: a file never changes under its address,
 * so what was read once is answered again without the storage. Least recently used go first.
 */
export class MediaBytesCache {
  readonly #files = new Map<string, Buffer>()
  #size = 0
  readonly #maxBytes: number
  constructor(maxBytes = 64 * 1024 * 1024) {
    this.#maxBytes = maxBytes
  }
  get(key: string): Buffer | undefined {
    const body = this.#files.get(key)
    if (body) {
      this.#files.delete(key)
      this.#files.set(key, body)
    }
    return body
  }
  set(key: string, body: Buffer): void {
    if (body.length > this.#maxBytes / 4 || this.#files.has(key)) return
    this.#files.set(key, body)
    this.#size += body.length
    for (const [old, bytes] of this.#files) {
      if (this.#size <= this.#maxBytes) break
      this.#files.delete(old)
      this.#size -= bytes.length
    }
  }
}

/** RFC 9110 13.1.2: If-None-Match compared weakly. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}

export interface MediaServing {
  db: Db
  storage: MediaStorage
  cache: MediaBytesCache
  /** Headers every answer on this host carries (a site's security policy). */
  headers: Record<string, string>
}

/**
 * Answers a media file: immutable caching, a strong ETag naming the file (its bytes never change
 * under its address) and 304 to a revalidation. `site` limits it to the site's account and live
 * release; on the service's own host any library's file is served.
 */
export async function serveMedia(
  request: FastifyRequest,
  reply: FastifyReply,
  serving: MediaServing,
  site: { siteId: string; buildId: string } | undefined,
  /** The file's path from `/_media/` on, where the address has a prefix (a preview's `/s/{site_id}`). */
  at: string = request.url,
): Promise<FastifyReply> {
  const path = at.split('?')[0]!
  const match = FILE.exec(path)
  const file = match ? await servableFile(serving.db, match[1]!, match[2]!, site) : undefined
  if (!match || !file) throw new errors.notFound('No such file')
  const etag = `"${match[1]}/${match[2]}"`
  reply.headers({ ...serving.headers, 'cache-control': IMMUTABLE, etag })
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send()
  let body = serving.cache.get(file.key)
  if (!body) {
    body = await getMediaBytes(serving.db, serving.storage, file.key)
    if (!body) throw new errors.notFound('No such file')
    serving.cache.set(file.key, body)
  }
  return reply.type(file.contentType).send(body)
}
