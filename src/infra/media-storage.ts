import type { S3Client } from '@aws-sdk/client-s3'
import type { Config } from '../config.ts'
import type { Db } from './db.ts'

/**
 * Where the bytes of the media library live (DESIGN.md 14): in PostgreSQL by default (the
 * embedded database too), or in S3-compatible object storage when MEDIA_S3_BUCKET is set. One
 * small interface, so the library never asks which.
 */

export interface StoredFile {
  key: string
  contentType: string
  body: Buffer
}

export interface MediaStorage {
  readonly kind: 'database' | 's3'
  /** Writes a media item's files; the database's in `trx`, so a failed upload leaves no row and no bytes. */
  write(trx: Db, mediaId: string, files: StoredFile[]): Promise<void>
  /** A file's bytes, or undefined when there is no such file. */
  read(db: Db, key: string): Promise<Buffer | undefined>
  /** Removes files (the database's go with their media row too). */
  remove(db: Db, keys: string[]): Promise<void>
}

/** The bytes in the `media_files` table beside their row. */
export function databaseStorage(): MediaStorage {
  return {
    kind: 'database',
    async write(trx, mediaId, files) {
      if (files.length === 0) return
      await trx
        .insertInto('media_files')
        .values(files.map((f) => ({ key: f.key, media_id: mediaId, content_type: f.contentType, body: f.body })))
        .execute()
    },
    async read(db, key) {
      const row = await db.selectFrom('media_files').select('body').where('key', '=', key).executeTakeFirst()
      if (!row) return undefined
      return Buffer.isBuffer(row.body) ? row.body : Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength)
    },
    async remove(db, keys) {
      if (keys.length) await db.deleteFrom('media_files').where('key', 'in', keys).execute()
    },
  }
}

export interface S3Options {
  bucket: string
  endpoint?: string | undefined
  region?: string | undefined
  /** Only for tests and local servers; production reads the usual AWS variables. */
  credentials?: { accessKeyId: string; secretAccessKey: string }
}

/** The bytes in a bucket, through the AWS SDK (any S3-compatible server with an endpoint). */
/** The SDK is loaded only when a bucket is configured: it takes a second to import. */
export async function s3Storage(options: S3Options): Promise<MediaStorage & { client: S3Client }> {
  const { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3')
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    // Other S3-compatible servers take path-style addresses and checksums only where S3 requires them.
    ...(options.endpoint
      ? {
          endpoint: options.endpoint,
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  })
  const Bucket = options.bucket
  return {
    kind: 's3',
    client,
    async write(_trx, _mediaId, files) {
      await Promise.all(
        files.map((f) =>
          client.send(
            new PutObjectCommand({
              Bucket,
              Key: f.key,
              Body: f.body,
              ContentType: f.contentType,
              CacheControl: 'public, max-age=31536000, immutable',
            }),
          ),
        ),
      )
    },
    async read(_db, key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: key }))
        return answer.Body ? Buffer.from(await answer.Body.transformToByteArray()) : undefined
      } catch (error) {
        const name = (error as { name?: string }).name
        if (name === 'NoSuchKey' || name === 'NotFound') return undefined
        throw error
      }
    },
    async remove(_db, keys) {
      for (let at = 0; at < keys.length; at += 1000) {
        const Objects = keys.slice(at, at + 1000).map((Key) => ({ Key }))
        await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }))
      }
    },
  }
}

/** The storage the configuration names. */
export async function openMediaStorage(config: Config): Promise<MediaStorage> {
  if (!config.MEDIA_S3_BUCKET) return databaseStorage()
  return s3Storage({ bucket: config.MEDIA_S3_BUCKET, endpoint: config.MEDIA_S3_ENDPOINT, region: config.MEDIA_S3_REGION })
}
