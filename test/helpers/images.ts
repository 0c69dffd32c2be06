import { crc32, deflateSync } from 'node:zlib'
import sharp from 'sharp'

/**
 * Real image files made in the test, as a phone or an editor would save them: a photo with its
 * EXIF orientation and GPS position, a PNG with transparency, and the other accepted formats.
 */

/** A JPEG stored 1000 × 700 on its side (EXIF orientation 6: upright it is 700 × 1000), with a camera and a GPS position. */
export async function phonePhoto(seed = 0): Promise<Buffer> {
  return sharp({ create: { width: 1000, height: 700, channels: 3, background: { r: 200, g: 120 + seed, b: 50 } } })
    .withMetadata({ orientation: 6 })
    .withExifMerge({ IFD0: { Make: 'TestCam', Model: 'Phone 12' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
    .jpeg({ quality: 90 })
    .toBuffer()
}

/** A logo-like PNG with transparency. */
export async function transparentPng(width = 500, height = 300): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 10, g: 80, b: 200, alpha: 0.5 } } })
    .png()
    .toBuffer()
}

export async function imageAs(format: 'webp' | 'avif' | 'gif' | 'png' | 'jpeg', width = 400, height = 300): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 160, b: 90 } } })
    .toFormat(format)
    .toBuffer()
}

/** A PNG whose header claims 10,000 × 6,000 pixels (60 megapixels once decoded) in a few bytes: a decompression bomb. */
export function pngBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4)
    head.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([head, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(10_000, 0)
  ihdr.writeUInt32BE(6_000, 4)
  ihdr[8] = 1 // one bit a pixel, greyscale: the smallest file for the most pixels
  const rows = deflateSync(Buffer.alloc(6_000 * 1251))
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

export const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
)
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n')
/** The first bytes of an iPhone's HEIC photo: an ISO-BMFF ftyp box with brand heic. */
export const HEIC = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)])
