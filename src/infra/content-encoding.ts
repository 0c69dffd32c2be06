import { createHash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** The encoding a client prefers among those stored: br, then gzip, then none (RFC 9110 12.5.3, q=0 honoured). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!acceptEncoding) return 'identity'
  const accepted = new Map<string, number>()
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    accepted.set(name ?? '', q ? Number(q.slice(2)) || 0 : 1)
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0
  if (weight('br') > 0) return 'br'
  if (weight('gzip') > 0) return 'gzip'
  return 'identity'
}

/** Bytes that change only with a deploy, with their br and gzip copies and a strong ETag. */
export interface CompressedAsset {
  identity: Buffer
  br: Buffer
  gzip: Buffer
  etag: string
}

/**
 * The assets made most recently, by their SHA-256. Brotli at its best quality was a fifth of an
 * app's start (the documentation page alone about 200 ms); several apps built in one process
 * (instances side by side, a test worker building one per file) compress the same bytes once.
 */
const recent = new Map<string, CompressedAsset>()
const RECENT_ASSETS = 16

/** `identity` with its compressed copies, made once per process for the same bytes. */
export function compressedAsset(identity: Buffer): CompressedAsset {
  const digest = createHash('sha256').update(identity).digest('base64url')
  let asset = recent.get(digest)
  if (!asset) {
    asset = {
      identity,
      br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      gzip: gzipSync(identity, { level: 9 }),
      etag: `"${digest.slice(0, 27)}"`,
    }
    recent.set(digest, asset)
    if (recent.size > RECENT_ASSETS) recent.delete(recent.keys().next().value!)
  }
  return asset
}
