import type { FastifyReply, FastifyRequest } from 'fastify'
import { changedSince, changeSequence } from '../domain/accounts/changes.ts'
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
  /** The bytes of a file if they are held, without counting it as used (the front door's read). */
  peek(key: string): Buffer | undefined {
    return this.#files.get(key)
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

/**
 * How long a file's answer is given again without asking the database whether it may still be
 * served: the bound on how long an item removed by another instance (or one a new release no longer
 * shows) can still be answered by an instance that served it just before. A removal made by this
 * instance makes its answers stale at once (`markChanged`).
 */
export const MEDIA_FRESH_MS = 1000

/** A file answered recently by the router: its headers (all but the request id and security headers) and where its bytes are held. */
export interface KnownMedia {
  key: string
  etag: string
  /** The 200's headers, type and length included, and the 304's, in the order the router sets them. */
  headers: Record<string, string | number>
  notModified: Record<string, string>
  /** When its right to be served was last read (performance.now()). */
  checked: number
  /** The item's id, and the change sequence noted before that read: a removal made here since makes the answer stale. */
  mediaId: string
  seen: number
}

/**
 * The files answered recently, by where they were asked for (`scope`: '' on the service's own
 * host, the site and its live build on a site's host) and path, so the front door can answer them
 * again without the router while the answer is fresh. An entry is replaced in place when it is read
 * again, and the oldest go once `maxEntries` are held; only new files change the table's size.
 */
export class MediaAnswers {
  readonly #known = new Map<string, KnownMedia>()
  readonly #maxEntries: number
  constructor(maxEntries = 4096) {
    this.#maxEntries = maxEntries
  }
  /** A fresh answer of `path` in `scope`, or undefined (unknown, or its right to be served is to be read again). */
  fresh(scope: string, path: string, now: number): KnownMedia | undefined {
    const known = this.#known.get(`${scope} ${path}`)
    return known && now - known.checked < MEDIA_FRESH_MS && !changedSince(known.mediaId, known.seen) ? known : undefined
  }
  remember(scope: string, path: string, known: KnownMedia): void {
    const id = `${scope} ${path}`
    if (!this.#known.has(id) && this.#known.size >= this.#maxEntries) this.#known.delete(this.#known.keys().next().value!)
    this.#known.set(id, known)
  }
}

/** Where a host's media answers are remembered: the site and its live build, or '' on the service's own host. */
export function mediaScope(site: { siteId: string; buildId: string } | undefined): string {
  return site ? `${site.siteId} ${site.buildId}` : ''
}

export interface MediaServing {
  db: Db
  storage: MediaStorage
  cache: MediaBytesCache
  /** Headers every answer on this host carries (a site's security policy). */
  headers: Record<string, string>
  /** Answers remembered for the front door (front-door.ts). */
  answers?: MediaAnswers
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
  // What the read finds holds from when it was asked.
  const checked = performance.now()
  const seen = changeSequence()
  const file = match ? await servableFile(serving.db, match[1]!, match[2]!, site) : undefined
  if (!match || !file) throw new errors.notFound('No such file')
  const etag = `"${match[1]}/${match[2]}"`
  const notModified = { ...serving.headers, 'cache-control': IMMUTABLE, etag }
  reply.headers(notModified)
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send()
  let body = serving.cache.get(file.key)
  if (!body) {
    body = await getMediaBytes(serving.db, serving.storage, file.key)
    if (!body) throw new errors.notFound('No such file')
    serving.cache.set(file.key, body)
  }
  const headers = { ...notModified, 'content-type': file.contentType, 'content-length': body.length }
  serving.answers?.remember(mediaScope(site), path, { key: file.key, etag, headers, notModified, checked, mediaId: match[1]!, seen })
  return reply.type(file.contentType).send(body)
}

/** A fresh answer the front door can give (the file's bytes still held), with the 304 when the client has it. */
export function knownMediaAnswer(
  answers: MediaAnswers,
  cache: MediaBytesCache,
  scope: string,
  url: string,
  ifNoneMatch: string | undefined,
): { status: 200 | 304; headers: Record<string, string | number>; body: Buffer | undefined } | undefined {
  const query = url.indexOf('?')
  const known = answers.fresh(scope, query === -1 ? url : url.slice(0, query), performance.now())
  if (!known) return undefined
  if (matches(ifNoneMatch, known.etag)) return { status: 304, headers: known.notModified, body: undefined }
  const body = cache.peek(known.key)
  return body && { status: 200, headers: known.headers, body }
}
