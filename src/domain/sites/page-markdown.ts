import type { TypedBlock } from './block-content.ts'
import type { Locale } from '../locales.ts'
import { safeHref, safeImageSrc } from './safe-href.ts'
import { addressLine, dayLines, exceptionText, mapLink, menuSections, priceText } from './hours.ts'

/**
 * A page's blocks as Markdown: the published site's text/markdown alternate and the MCP page
 * resource read the same. Pure functions of the blocks; links come out absolute.
 */

/** The heading of a contact form block that names none. */
export const CONTACT_HEADING: Record<Locale, string> = { en: 'Contact', de: 'Kontakt', fr: 'Contact' }
/** The headings of the business blocks that name none. */
export const HOURS_HEADING: Record<Locale, string> = { en: 'Opening hours', de: 'Öffnungszeiten', fr: 'Horaires d’ouverture' }
export const MENU_HEADING: Record<Locale, string> = { en: 'Menu', de: 'Angebot', fr: 'Carte' }
export const MAP_LINK: Record<Locale, string> = { en: 'Show on the map', de: 'Auf der Karte zeigen', fr: 'Voir sur la carte' }
export const PHONE_LABEL: Record<Locale, string> = { en: 'Phone', de: 'Telefon', fr: 'Téléphone' }
export const EMAIL_LABEL: Record<Locale, string> = { en: 'Email', de: 'E-Mail', fr: 'E-mail' }

interface Link {
  label: string
  href: string
}

/** Markdown inline text: characters Markdown would read as markup are backslash-escaped. */
export function mdText(text: string): string {
  return text.replace(/([\\`*_[\]<>#|])/g, '\\$1')
}

function mdLink(link: Link, absolute: (href: string) => string): string {
  const href = safeHref(link.href)
  return href === undefined ? mdText(link.label) : `[${mdText(link.label)}](<${absolute(href).replace(/[<>\s]/g, encodeURIComponent)}>)`
}

/**
 * The author's Markdown for the text/markdown alternate, with every inline link or image whose
 * target fails the check reduced to its words, as the HTML page shows it.
 */
export function safeMarkdown(markdown: string): string {
  return markdown.replace(
    /(!?)\[([^\]]*)\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)([^)]*)\)/g,
    (whole, bang: string, text: string, target: string) => {
      const url = target.startsWith('<') ? target.slice(1, -1) : target
      return safeHref(url) === undefined ? text : whole
    },
  )
}

/** An image with its caption; `src` is the address, or the build's for a library image (its alt text too). */
function pictureMarkdown(picture: { src?: string; alt?: string; caption?: string }, absolute: (href: string) => string): string {
  const src = picture.src === undefined ? undefined : safeImageSrc(picture.src)
  return [src ? `![${mdText(picture.alt ?? '')}](<${absolute(src)}>)` : '', picture.caption ? `*${mdText(picture.caption)}*` : '']
    .filter(Boolean)
    .join('\n\n')
}

/** One block as Markdown; links are absolute. */
export function blockMarkdown(block: TypedBlock, isH1: boolean, absolute: (href: string) => string, locale: Locale): string {
  switch (block.type) {
    case 'hero': {
      const c = block.content
      return [`${isH1 ? '#' : '##'} ${mdText(c.heading)}`, c.subheading ? mdText(c.subheading) : '', c.cta ? mdLink(c.cta, absolute) : '']
        .filter(Boolean)
        .join('\n\n')
    }
    case 'text':
      return safeMarkdown(block.content.markdown).trim()
    case 'image':
      return pictureMarkdown(block.content, absolute)
    case 'gallery': {
      const c = block.content
      return [c.heading ? `## ${mdText(c.heading)}` : '', ...c.images.map((i) => pictureMarkdown(i, absolute))].filter(Boolean).join('\n\n')
    }
    case 'features':
    case 'faq': {
      const c = block.content
      const level = c.heading ? '###' : '##'
      const items =
        block.type === 'features'
          ? block.content.items.map((i) => [i.title, i.text])
          : block.content.items.map((i) => [i.question, i.answer])
      return [c.heading ? `## ${mdText(c.heading)}` : '', ...items.map(([title, text]) => `${level} ${mdText(title!)}\n\n${mdText(text!)}`)]
        .filter(Boolean)
        .join('\n\n')
    }
    case 'cta': {
      const c = block.content
      return [`## ${mdText(c.heading)}`, c.text ? mdText(c.text) : '', mdLink({ label: c.label, href: c.href }, absolute)]
        .filter(Boolean)
        .join('\n\n')
    }
    case 'contact_form':
      return `## ${mdText(block.content.heading ?? CONTACT_HEADING[locale])}`
    case 'testimonial': {
      const c = block.content
      return `> ${mdText(c.quote).replace(/\n/g, '\n> ')}\n>\n> — ${mdText(c.author)}${c.role ? `, ${mdText(c.role)}` : ''}`
    }
    case 'opening_hours': {
      const c = block.content
      const lines = dayLines(c, locale).map((d) => `- ${mdText(d.day)}: ${mdText(d.text)}`)
      const exceptions = (c.exceptions ?? []).map((e) => exceptionText(e, locale)).map((e) => `- ${mdText(e.date)}: ${mdText(e.text)}`)
      return [`## ${mdText(c.heading ?? HOURS_HEADING[locale])}`, lines.join('\n'), exceptions.join('\n')].filter(Boolean).join('\n\n')
    }
    case 'menu': {
      const c = block.content
      const currency = c.currency ?? 'EUR'
      const sections = menuSections(c).map((section) =>
        [
          section.title ? `### ${mdText(section.title)}` : '',
          section.items
            .map(
              (i) =>
                `- **${mdText(i.name)}**${i.price === undefined ? '' : ` — ${mdText(priceText(i.price, currency, locale))}`}${i.description ? `: ${mdText(i.description)}` : ''}`,
            )
            .join('\n'),
        ]
          .filter(Boolean)
          .join('\n\n'),
      )
      return [`## ${mdText(c.heading ?? MENU_HEADING[locale])}`, ...sections].join('\n\n')
    }
    case 'contact_details': {
      const c = block.content
      return [
        `## ${mdText(c.heading ?? CONTACT_HEADING[locale])}`,
        c.address ? `${mdText(addressLine(c.address))} ([${MAP_LINK[locale]}](<${mapLink(c.address)}>))` : '',
        c.phone ? `${PHONE_LABEL[locale]}: [${mdText(c.phone)}](<tel:${c.phone.replace(/[^+0-9]/g, '')}>)` : '',
        c.email ? `${EMAIL_LABEL[locale]}: [${mdText(c.email)}](<mailto:${c.email}>)` : '',
      ]
        .filter(Boolean)
        .join('\n\n')
    }
  }
}

/** A page's blocks as Markdown: a leading hero gives the page's h1 (`h1`), the rest follow in order (`body`). */
export function pageBlocksMarkdown(
  blocks: readonly TypedBlock[],
  locale: Locale,
  absolute: (href: string) => string,
): { h1: string | undefined; body: string[] } {
  const leadingHero = blocks[0]?.type === 'hero'
  const body = blocks.map((block, index) => blockMarkdown(block, leadingHero && index === 0, absolute, locale))
  return { h1: leadingHero ? body.shift() : undefined, body }
}
