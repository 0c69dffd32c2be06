import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import type { FontFamily, FontPair } from '../domain/sites/themes.ts'
import { relativePath } from './render/paths.ts'
import type { ReleaseFile } from './release-store.ts'

/**
 * Files every hosted site serves from its own origin besides its release: the theme fonts (woff2
 * from the @fontsource packages, Latin and Latin Extended) and the templates' illustrations. They
 * live under /_wps/assets/ with a content hash in their names, so they are cached for a year and
 * a new version is a new address. Read from disk on first use and kept.
 */

export const ASSET_PREFIX = '/_wps/assets/'
const SUBSETS = ['latin', 'latin-ext'] as const
const HEADING_WEIGHTS = [700] as const
const BODY_WEIGHTS = [400, 700] as const
const require = createRequire(import.meta.url)
const ILLUSTRATIONS = join(dirname(new URL(import.meta.url).pathname), 'illustrations')

interface Asset extends ReleaseFile {
  /** The address without its hash, how code names it. */
  name: string
}

const byPath = new Map<string, Asset>()
const byName = new Map<string, Asset>()
const assets = new WeakSet<ReleaseFile>()
const ranges = new Map<string, string>()

function add(name: string, contentType: string, body: Buffer, compress: boolean): Asset {
  const hash = createHash('sha256').update(body).digest('base64url')
  const dot = name.lastIndexOf('.')
  const path = `${ASSET_PREFIX}${name.slice(0, dot)}.${hash.slice(0, 10).replace(/[-_]/g, 'x')}${name.slice(dot)}`
  // woff2 is compressed already: its "compressed" copies are the same bytes, answered as identity.
  const asset: Asset = {
    name,
    path,
    contentType,
    etag: `"${hash.slice(0, 27)}"`,
    body,
    gzip: compress ? gzipSync(body, { level: 9 }) : body,
    br: compress ? brotliCompressSync(body) : body,
  }
  byPath.set(path, asset)
  byName.set(name, asset)
  assets.add(asset)
  return asset
}

function packageDir(id: string): string {
  return dirname(require.resolve(`@fontsource/${id}/package.json`))
}

/** The unicode-range of a subset as the package declares it. */
function unicodeRange(id: string, subset: string, weight: number): string {
  const key = `${id}/${subset}`
  let range = ranges.get(key)
  if (range === undefined) {
    // The weight's stylesheet declares every subset, each after a comment naming it.
    const css = readFileSync(join(packageDir(id), `${weight}.css`), 'utf8')
    const at = css.indexOf(`/* ${id}-${subset}-${weight}-normal */`)
    range = at === -1 ? '' : (/unicode-range:\s*([^;}]+)/.exec(css.slice(at))?.[1]?.trim() ?? '')
    ranges.set(key, range)
  }
  return range
}

function fontAsset(id: string, subset: string, weight: number): Asset {
  const name = `fonts/${id}-${subset}-${weight}-normal.woff2`
  return (
    byName.get(name) ??
    add(name, 'font/woff2', readFileSync(join(packageDir(id), 'files', `${id}-${subset}-${weight}-normal.woff2`)), false)
  )
}

let illustrationsLoaded = false
function loadIllustrations(): void {
  if (illustrationsLoaded) return
  illustrationsLoaded = true
  for (const file of readdirSync(ILLUSTRATIONS)) {
    if (file.endsWith('.svg')) add(`illustrations/${file}`, 'image/svg+xml', readFileSync(join(ILLUSTRATIONS, file)), true)
  }
}

/** The served address of an illustration shipped with the service ('bakery.svg'), or undefined. */
export function illustrationPath(file: string): string | undefined {
  loadIllustrations()
  return byName.get(`illustrations/${file}`)?.path
}

const ILLUSTRATION_ADDRESS = `${ASSET_PREFIX}illustrations/`

/**
 * A template's illustration named by its address without the hash (/_wps/assets/illustrations/bakery.svg,
 * as drafts store it): the served address and its size (every illustration is drawn at 1200×675).
 */
export function shippedIllustration(src: string): { path: string; width: number; height: number } | undefined {
  if (!src.startsWith(ILLUSTRATION_ADDRESS)) return undefined
  const path = illustrationPath(src.slice(ILLUSTRATION_ADDRESS.length))
  return path ? { path, width: 1200, height: 675 } : undefined
}

/** The file at a path under /_wps/assets/, or undefined. */
export function staticAsset(path: string): ReleaseFile | undefined {
  if (!path.startsWith(ASSET_PREFIX)) return undefined
  loadIllustrations()
  // An illustration also answers at its name without the hash (a draft's og:image names it so).
  return byPath.get(path) ?? (path.startsWith(ILLUSTRATION_ADDRESS) ? byName.get(path.slice(ASSET_PREFIX.length)) : undefined)
}

/** Whether a file is one of these assets (cached for a year: its address changes with its bytes). */
export function isStaticAsset(file: ReleaseFile): boolean {
  return assets.has(file)
}

export interface FontLink {
  href: string
}

/**
 * The @font-face rules of a font pair for a page at `from` (font-display: swap, each subset with
 * its unicode-range, so a page downloads only what its text uses), and the files to preload: the
 * heading font's Latin bold first, then the body's Latin regular, so both are there before the
 * first paint and no text moves when they arrive (a late body font reflowed a page by a third of
 * its height in Lighthouse). The system pair has none.
 */
export function fontFaces(pair: FontPair, from: string): { css: string; preloads: FontLink[] } {
  const faces: string[] = []
  const declared = new Set<string>()
  const declare = (family: FontFamily, weights: readonly number[]) => {
    if (!family.id) return
    for (const weight of weights)
      for (const subset of SUBSETS) {
        const key = `${family.id}-${subset}-${weight}`
        if (declared.has(key)) continue
        declared.add(key)
        const asset = fontAsset(family.id, subset, weight)
        faces.push(
          `@font-face{font-family:"${family.name}";font-style:normal;font-display:swap;font-weight:${weight};src:url(${relativePath(from, asset.path)}) format("woff2");unicode-range:${unicodeRange(family.id, subset, weight)}}`,
        )
      }
  }
  declare(pair.heading, HEADING_WEIGHTS)
  declare(pair.body, BODY_WEIGHTS)
  const preloads = [
    ...(pair.heading.id ? [{ href: relativePath(from, fontAsset(pair.heading.id, 'latin', 700).path) }] : []),
    ...(pair.body.id ? [{ href: relativePath(from, fontAsset(pair.body.id, 'latin', 400).path) }] : []),
  ]
  return { css: faces.join(''), preloads }
}
