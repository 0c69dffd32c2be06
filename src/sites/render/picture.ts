import { safeImageSrc } from '../../domain/sites/safe-href.ts'
import { html, type SafeHtml } from '../../infra/html.ts'
import { localHref, relativePath } from './paths.ts'
import { shippedIllustration } from '../assets.ts'
import type { Block, Picture, RenderMedia, RenderSite } from './types.ts'

/**
 * Images in published pages (DESIGN.md 14). A library image becomes a <picture>: WebP first,
 * then its own family (JPEG or PNG), each with every width in `srcset`, `sizes` saying how wide
 * it is shown, and its width and height, so the page does not shift while it loads. The first
 * image of a page is fetched at once (`fetchpriority="high"`); the others wait until they come
 * near the screen (`loading="lazy"`).
 */

/** How wide an image is shown: the page's column (60rem), or a gallery's cell. */
export const SIZES = {
  column: '(min-width: 60rem) 58rem, calc(100vw - 2rem)',
  cell: '(min-width: 60rem) 19rem, (min-width: 40rem) 45vw, calc(100vw - 2rem)',
} as const

function srcset(from: string, media: RenderMedia, format: string): string {
  return media.variants
    .filter((v) => v.format === format)
    .sort((a, b) => a.width - b.width)
    .map((v) => `${localHref(from, v.path)} ${v.width}w`)
    .join(', ')
}

/** The loading attributes: the page's first image is wanted at once, the rest when near. */
function loading(eager: boolean): SafeHtml {
  return eager ? html`fetchpriority="high" decoding="async"` : html`loading="lazy" decoding="async"`
}

/** The largest variant in the image's own family: what a browser without srcset shows. */
export function largestOf(media: RenderMedia): RenderMedia['variants'][number] | undefined {
  const family = media.variants.filter((v) => v.format !== 'webp')
  return (family.length ? family : media.variants).reduce<RenderMedia['variants'][number] | undefined>(
    (a, b) => (a && a.width >= b.width ? a : b),
    undefined,
  )
}

/** An image as HTML: a <picture> for a library image, an <img> for an address; '' when it has neither. */
export function pictureHtml(from: string, picture: Picture, eager: boolean, sizes: string = SIZES.column): SafeHtml | '' {
  const alt = picture.alt ?? picture.media?.alt ?? ''
  const media = picture.media
  const largest = media ? largestOf(media) : undefined
  if (media && largest) {
    const family = largest.format
    const webp = family === 'webp' ? '' : html`<source type="image/webp" srcset="${srcset(from, media, 'webp')}" sizes="${sizes}">`
    return html`<picture>${webp}<img src="${localHref(from, largest.path)}" srcset="${srcset(from, media, family)}" sizes="${sizes}" width="${media.width}" height="${media.height}" alt="${alt}" ${loading(eager)}></picture>`
  }
  const src = picture.src === undefined ? undefined : safeImageSrc(picture.src)
  if (src === undefined) return ''
  // A template's illustration is named without its hash: the page links the current file, sized.
  const shipped = shippedIllustration(src)
  if (shipped)
    return html`<img src="${relativePath(from, shipped.path)}" width="${shipped.width}" height="${shipped.height}" alt="${alt}" ${loading(eager)}>`
  return html`<img src="${localHref(from, src)}" alt="${alt}" ${loading(eager)}>`
}

/** The site's logo heading every page, at the height the header shows it (3rem). */
export function logoHtml(site: RenderSite, from: string): SafeHtml | '' {
  const logo = site.logo
  const largest = logo ? largestOf(logo) : undefined
  if (!logo || !largest) return ''
  const height = 48
  const width = Math.max(1, Math.round((logo.width / logo.height) * height))
  return html`<img src="${localHref(from, largest.path)}" srcset="${srcset(from, logo, largest.format)}" sizes="${width}px" width="${width}" height="${height}" alt="">`
}

/** The favicon and touch icons made from the logo; an empty icon where the site has none (browsers ask for /favicon.ico otherwise). */
export function iconLinks(site: RenderSite, from: string): SafeHtml {
  const icons = site.logo?.icons ?? []
  if (icons.length === 0) return html`<link rel="icon" href="data:,">`
  return html`${icons.map((icon) =>
    icon.size === 180
      ? html`<link rel="apple-touch-icon" sizes="180x180" href="${localHref(from, icon.path)}">`
      : html`<link rel="icon" type="image/png" sizes="${icon.size}x${icon.size}" href="${localHref(from, icon.path)}">`,
  )}`
}

/** The pictures of a block in the order the page shows them. */
export function picturesOf(block: Block): Picture[] {
  if (block.type === 'hero') return block.content.image ? [block.content.image] : []
  if (block.type === 'image') return [block.content]
  if (block.type === 'gallery') return block.content.images
  return []
}

/** The page's first image that shows (a hero's, an image block's, a gallery's), for og:image and eager loading. */
export function firstPicture(blocks: readonly Block[]): Picture | undefined {
  for (const block of blocks)
    for (const picture of picturesOf(block)) if (picture.media || (picture.src !== undefined && safeImageSrc(picture.src))) return picture
  return undefined
}

/** Where og:image points for a picture: its 1200 × 630 cut, else its largest variant, else its address. */
export function ogImagePath(picture: Picture | undefined): string | undefined {
  if (!picture) return undefined
  if (picture.media) return picture.media.og ?? largestOf(picture.media)?.path
  return picture.src === undefined ? undefined : safeImageSrc(picture.src)
}
