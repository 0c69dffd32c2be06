import type { Metadata, Sharp } from 'sharp'
import { errors } from '../../errors.ts'
import { lowerImageThreads } from '../../infra/thread-priority.ts'

/**
 * What an upload becomes (DESIGN.md 14): its bytes decide what it is, never its name or
 * Content-Type; it is turned upright by its EXIF orientation, every metadata block is dropped
 * (GPS, camera, names) but an sRGB colour profile, and variants are made at the widths below,
 * none wider than the original, in WebP and in the original's family (PNG when it has
 * transparency, JPEG otherwise).
 */

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024
export const MAX_PIXELS = 50_000_000
export const VARIANT_WIDTHS = [320, 640, 960, 1280, 1920, 2560] as const

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif'
export type VariantFormat = 'webp' | 'jpeg' | 'png'

export const CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
}
export const EXTENSIONS: Record<VariantFormat, string> = { webp: 'webp', jpeg: 'jpg', png: 'png' }

export interface Variant {
  width: number
  height: number
  format: VariantFormat
  body: Buffer
}

export interface ProcessedImage {
  format: ImageFormat
  contentType: string
  /** Upright, as the variants show it. */
  width: number
  height: number
  variants: Variant[]
}

const ascii = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')

/** The brands of an ISO-BMFF file (AVIF, HEIC): its major brand and the compatible ones. */
function isoBrands(bytes: Uint8Array): string[] | undefined {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return undefined
  const size = Math.min(Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0), bytes.length, 256)
  const brands = [ascii(bytes, 8, 12)]
  for (let at = 16; at + 4 <= size; at += 4) brands.push(ascii(bytes, at, at + 4))
  return brands
}

const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs'])

/** What the first bytes say the file is; the refusal of anything the library does not take. */
export function sniffFormat(bytes: Uint8Array): ImageFormat {
  if (bytes.length === 0) throw new errors.invalidImage('The file is empty')
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (ascii(bytes, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png'
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif'
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp'
  const brands = isoBrands(bytes)
  if (brands?.includes('avif') || brands?.includes('avis')) return 'avif'
  if (brands?.some((b) => HEIF_BRANDS.has(b)) || brands?.includes('mif1')) {
    throw new errors.unsupportedMediaType(
      'HEIC photos are not supported: save it as JPEG (on an iPhone, Settings › Camera › Formats › Most Compatible) and upload it again',
    )
  }
  const head = ascii(bytes, 0, 512).trimStart().toLowerCase()
  if (head.startsWith('<svg') || (head.startsWith('<') && head.includes('<svg'))) {
    throw new errors.unsupportedMediaType('SVG images are not supported: save it as PNG and upload it again')
  }
  if (head.startsWith('%pdf'))
    throw new errors.unsupportedMediaType('PDF files are not images: save the page as JPEG or PNG and upload that')
  throw new errors.unsupportedMediaType('The file is not a JPEG, PNG, WebP, AVIF or GIF image')
}

/** The widths the variants of an image `width` pixels wide are made at: the list's below it, and its own width (at most the largest). */
export function variantWidths(width: number): number[] {
  const top = Math.min(width, VARIANT_WIDTHS.at(-1)!)
  return [...VARIANT_WIDTHS.filter((w) => w < top), top]
}

let sharpModule: Promise<typeof import('sharp')> | undefined
/** libvips is loaded on the first upload, not at start: it takes half a second to load. */
export function loadSharp() {
  sharpModule ??= import('sharp')
  return sharpModule.then((m) => m.default)
}

const ENCODE = {
  webp: (image: Sharp) => image.webp({ quality: 80, effort: 2 }),
  jpeg: (image: Sharp) => image.jpeg({ quality: 82, mozjpeg: false, progressive: true }),
  png: (image: Sharp) => image.png({ compressionLevel: 8, effort: 4 }),
}

/**
 * Checks an upload and makes its variants; throws the documented refusal (413, 415, 422) for
 * anything it will not store. The pixel count is read from the header before anything is
 * decoded, so a decompression bomb costs nothing.
 */
export async function processImage(bytes: Uint8Array): Promise<ProcessedImage> {
  const sharp = await loadSharp()
  if (bytes.length > MAX_UPLOAD_BYTES) throw new errors.payloadTooLarge('The file is larger than 20 MB')
  const format = sniffFormat(bytes)
  const input = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let meta: Metadata
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata()
  } catch {
    throw new errors.invalidImage(`The file looks like ${format.toUpperCase()} but cannot be read as an image`)
  }
  if (meta.format !== (format === 'avif' ? 'heif' : format))
    throw new errors.invalidImage(`The file's contents do not match its ${format.toUpperCase()} header`)
  if (!meta.width || !meta.height) throw new errors.invalidImage('The image has no size')
  const pixels = meta.width * meta.height
  if (pixels > MAX_PIXELS) {
    throw new errors.payloadTooLarge(`The image has ${(pixels / 1e6).toFixed(1)} megapixels; at most 50 are accepted`)
  }
  // Orientations 5 to 8 turn the picture a quarter: its upright width is its stored height.
  const turned = (meta.orientation ?? 1) >= 5
  const width = turned ? meta.height : meta.width
  const height = turned ? meta.width : meta.height
  const base = sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'truncated', pages: 1 }).rotate().withIccProfile('srgb')
  try {
    // One decode, then each width from it; the widths run in libvips' own threads.
    const upright = await base.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true })
    // The threads libvips started for the decode, then those for the variants, go below the event loop.
    lowerImageThreads()
    const family: VariantFormat = meta.hasAlpha && !opaque(upright.data, upright.info.channels) ? 'png' : 'jpeg'
    const source = () =>
      sharp(upright.data, { raw: { width: upright.info.width, height: upright.info.height, channels: upright.info.channels } })
    const variants = await Promise.all(
      variantWidths(width).flatMap((w) =>
        (['webp', family] as const).map(async (f) => {
          const resized = source().resize({ width: w, withoutEnlargement: true }).withIccProfile('srgb')
          const { data, info } = await ENCODE[f](resized).toBuffer({ resolveWithObject: true })
          return { width: info.width, height: info.height, format: f, body: data }
        }),
      ),
    )
    lowerImageThreads()
    return { format, contentType: CONTENT_TYPES[format], width, height, variants }
  } catch (error) {
    if ((error as Error).message?.includes('pixel limit')) throw new errors.payloadTooLarge('The image has more than 50 megapixels')
    throw new errors.invalidImage(`The ${format.toUpperCase()} file is damaged or incomplete (${conciseReason(error)})`)
  }
}

/** Whether every pixel's alpha is full: an alpha channel nothing shows through makes a photo, not a cut-out. */
function opaque(pixels: Buffer, channels: number): boolean {
  if (channels !== 2 && channels !== 4) return true
  for (let at = channels - 1; at < pixels.length; at += channels) if (pixels[at] !== 255) return false
  return true
}

/** libvips' words for what is wrong with a file, without paths or the library's name. */
function conciseReason(error: unknown): string {
  const text = String((error as Error).message ?? '')
    .replace(/^(Input (buffer|file) )?/, '')
    .split('\n')[0]!
  return text.replace(/vips\w*:?\s*/gi, '').slice(0, 120) || 'it cannot be decoded'
}
