import type { Db } from '../infra/db.ts'
import type { StoredPassage as Passage } from '../domain/sites/passages.ts'
import type { PlacedPage } from './render/page.ts'
import type { Block, RenderSite } from './render/index.ts'
import type { Locale } from '../domain/locales.ts'
import { blockMarkdown } from '../domain/sites/page-markdown.ts'

/** Markdown reduced to its words: links keep their text, markup characters go. */
function plain(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_`~]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

function blockPassages(block: Block, locale: Locale): Array<{ heading?: string; text: string }> {
  switch (block.type) {
    case 'hero':
      return [{ heading: block.content.heading, text: [block.content.heading, block.content.subheading].filter(Boolean).join('. ') }]
    case 'text':
      // One passage per section of the Markdown, so an answer can cite the part it used.
      return block.content.markdown.split(/\n(?=#{1,6}\s)/).map((section) => {
        const heading = /^#{1,6}\s+(.+)/.exec(section.trim())?.[1]
        return { ...(heading ? { heading: plain(heading) } : {}), text: plain(section) }
      })
    case 'features':
      return block.content.items.map((i) => ({ heading: i.title, text: `${i.title}: ${i.text}` }))
    case 'faq':
      return block.content.items.map((i) => ({ heading: i.question, text: `${i.question} ${i.answer}` }))
    case 'cta':
      return [{ heading: block.content.heading, text: [block.content.heading, block.content.text].filter(Boolean).join('. ') }]
    case 'testimonial':
      return [{ text: `"${block.content.quote}" (${[block.content.author, block.content.role].filter(Boolean).join(', ')})` }]
    case 'image':
      return block.content.caption ? [{ text: block.content.caption }] : []
    case 'gallery':
      return block.content.images.flatMap((i) => (i.caption ? [{ text: i.caption }] : []))
    case 'contact_form':
      return []
    case 'opening_hours':
    case 'menu':
    case 'contact_details': {
      // The words the page shows: days and prices in the page's language, the address and numbers.
      const markdown = blockMarkdown(block, false, (href) => href, locale)
      return [{ heading: /^##\s+(.+)/.exec(markdown)?.[1], text: plain(markdown.replace(/\]\(<[^>]*>\)/g, ']()')) }]
    }
  }
}

/** The passages of every published page, per locale, each citing its page's canonical URL. */
export function sitePassages(site: RenderSite, pages: PlacedPage[]): Passage[] {
  return pages.flatMap(({ page, urlPath }) => {
    const url = `${site.origin}${urlPath}`
    return [{ text: page.description }, ...page.blocks.flatMap((block) => blockPassages(block, page.locale))]
      .filter((p) => p.text.length > 0)
      .map((p) => ({
        locale: page.locale,
        url,
        title: 'heading' in p && p.heading ? `${page.title}: ${p.heading}` : page.title,
        text: p.text,
      }))
  })
}

/** Stores a build's passages; the assistant reads those of the site's live build. Call inside the build's transaction. */
export async function savePassages(db: Db, siteId: string, buildId: string, passages: Passage[]): Promise<void> {
  await db.deleteFrom('site_passages').where('build_id', '=', buildId).execute()
  for (let i = 0; i < passages.length; i += 500) {
    await db
      .insertInto('site_passages')
      .values(passages.slice(i, i + 500).map((p, j) => ({ build_id: buildId, position: i + j, site_id: siteId, ...p })))
      .execute()
  }
}
