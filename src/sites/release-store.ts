import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Db } from '../infra/db.ts'
import { FORM_TOKEN_SLOT } from './form-token.ts'
import type { RenderedFile } from './render/index.ts'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** A file of a release as it is stored and served: the bytes, their precompressed copies and a strong ETag. */
export interface ReleaseFile {
  path: string
  contentType: string
  etag: string
  body: Buffer
  gzip: Buffer
  br: Buffer
  /** A page with a contact form: its bytes before and after the form token, stamped as it is served. */
  stamped?: { before: Buffer; after: Buffer }
}

/** The page's bytes around its form token's place, for a page that has one. */
function stampedParts(contentType: string, body: Buffer): ReleaseFile['stamped'] {
  if (!contentType.startsWith('text/html')) return undefined
  const at = body.indexOf(FORM_TOKEN_SLOT)
  if (at === -1) return undefined
  return { before: body.subarray(0, at), after: body.subarray(at + FORM_TOKEN_SLOT.length) }
}

const withStamp = (file: ReleaseFile): ReleaseFile => {
  const stamped = stampedParts(file.contentType, file.body)
  return stamped ? { ...file, stamped } : file
}

/**
 * Compresses every file once, at build time; the thread pool does the work so the event loop
 * keeps serving. Brotli at quality 5 keeps a 50-page build well under a second (quality 11 takes
 * ~15 times longer for a few percent fewer bytes); gzip at level 9 costs little.
 */
export async function compressFiles(files: RenderedFile[]): Promise<ReleaseFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const body = Buffer.from(file.body, 'utf8')
      const [br, gz] = await Promise.all([
        brotli(body, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 5,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        }),
        gzipAsync(body, { level: 9 }),
      ])
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      return withStamp({ path: file.path, contentType: file.contentType, etag, body, gzip: gz, br })
    }),
  )
}

/** Stores a build's files, replacing any a failed earlier attempt left behind. Call inside a transaction. */
export async function saveReleaseFiles(db: Db, buildId: string, files: ReleaseFile[]): Promise<void> {
  await db.deleteFrom('build_files').where('build_id', '=', buildId).execute()
  // Batches keep one statement's parameters well below the protocol's limit.
  for (let i = 0; i < files.length; i += 200) {
    const rows = files
      .slice(i, i + 200)
      .map((f) => ({ build_id: buildId, path: f.path, content_type: f.contentType, etag: f.etag, body: f.body, gzip: f.gzip, br: f.br }))
    await db.insertInto('build_files').values(rows).execute()
  }
}

const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))

/** Every file of a release, by path, in one round trip. */
export async function loadReleaseFiles(db: Db, buildId: string): Promise<Map<string, ReleaseFile>> {
  const rows = await db.selectFrom('build_files').selectAll().where('build_id', '=', buildId).execute()
  return new Map(
    rows.map((r) => [
      r.path,
      withStamp({
        path: r.path,
        contentType: r.content_type,
        etag: r.etag,
        body: asBuffer(r.body),
        gzip: asBuffer(r.gzip),
        br: asBuffer(r.br),
      }),
    ]),
  )
}
