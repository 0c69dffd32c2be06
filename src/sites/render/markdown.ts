import { renderMarkdown } from '../../domain/sites/markdown.ts'
import { localHref } from './paths.ts'

/** Markdown to HTML for the page at `from` (its release path): site-internal links become relative to the page. */
export function markdownToHtml(markdown: string, from: string): string {
  return renderMarkdown(markdown, (href) => localHref(from, href))
}
