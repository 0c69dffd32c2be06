import MarkdownIt from 'markdown-it'
import { safeHref } from './safe-href.ts'

/**
 * Text blocks are Markdown written by the site owner, rendered by this one renderer wherever
 * they are shown: in a published page and in the dashboard's editor. Raw HTML is off (it is shown
 * as text), link and image targets go through the same check as every other href, and headings
 * start at h2: the page's h1 is its title or hero.
 */
// A line break typed on its own line stays one (`breaks`): opening hours or an address typed one
// per line must not run together, and owners do not learn Markdown's two trailing spaces.
const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true })
md.validateLink = (url) => safeHref(url) !== undefined

interface Env {
  href: (target: string) => string
}

md.core.ruler.push('site_paths', (state) => {
  const env = state.env as unknown as Env
  const levels = state.tokens.filter((t) => t.type === 'heading_open').map((t) => Number(t.tag.slice(1)))
  // The block's top heading becomes an h2, whatever level the author started at; nesting is kept.
  const shift = levels.length ? 2 - Math.min(...levels) : 0
  for (const token of state.tokens) {
    if (token.type === 'heading_open' || token.type === 'heading_close') token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + shift)}`
    for (const child of token.children ?? []) {
      const attr = child.type === 'link_open' ? 'href' : child.type === 'image' ? 'src' : undefined
      const value = attr ? child.attrGet(attr) : null
      if (attr && value !== null) child.attrSet(attr, env.href(String(value)))
      if (child.type === 'image') child.attrSet('loading', 'lazy')
    }
  }
})

// A code block keeps its lines and scrolls sideways in its own box on a narrow screen: a keyboard
// must be able to reach it to scroll it.
for (const rule of ['fence', 'code_block'] as const) {
  const render = md.renderer.rules[rule]!
  md.renderer.rules[rule] = (...args) => render(...args).replace(/^<pre/, '<pre tabindex="0"')
}

/** Markdown to HTML; `href` rewrites link and image targets (a published page makes site paths relative to itself). */
export function renderMarkdown(markdown: string, href: (target: string) => string = (target) => target): string {
  return md.render(markdown, { href } satisfies Env)
}
