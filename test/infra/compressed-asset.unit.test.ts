import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { compressedAsset } from '../../src/infra/content-encoding.ts'

describe('a compressed asset', () => {
  const page = Buffer.from(`<!doctype html><title>Bakery</title>${'<p>Fresh bread, baked each morning.</p>'.repeat(200)}`)

  it('holds the bytes, br and gzip copies that open to the same bytes, and a strong ETag of their SHA-256', () => {
    const asset = compressedAsset(page)
    expect(asset.identity.equals(page)).toBe(true)
    expect(brotliDecompressSync(asset.br).equals(page)).toBe(true)
    expect(gunzipSync(asset.gzip).equals(page)).toBe(true)
    expect(asset.br.length).toBeLessThan(page.length / 10)
    expect(asset.etag).toBe(`"${createHash('sha256').update(page).digest('base64url').slice(0, 27)}"`)
  })

  it('is made once per process for the same bytes, and anew for other bytes', () => {
    expect(compressedAsset(Buffer.from(page))).toBe(compressedAsset(page))
    const other = compressedAsset(Buffer.from('<p>Rye on Saturdays</p>'))
    expect(other).not.toBe(compressedAsset(page))
    expect(brotliDecompressSync(other.br).toString()).toBe('<p>Rye on Saturdays</p>')
  })

  it('keeps only the most recent assets, so a process making many does not grow without end', () => {
    const first = compressedAsset(Buffer.from('first'))
    for (let i = 0; i < 20; i++) compressedAsset(Buffer.from(`page ${i}`))
    const again = compressedAsset(Buffer.from('first'))
    expect(again).not.toBe(first)
    expect(again.etag).toBe(first.etag)
  })
})
