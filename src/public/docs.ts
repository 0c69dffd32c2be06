import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import MarkdownIt from 'markdown-it'
import type { Config } from '../config.ts'
import { html, raw, sendStaticPage, staticPage, type SafeHtml } from '../infra/html.ts'
import { publicPage } from './page-layout.ts'

/** Where the document lives beside the code; the image copies it too. */
const README = new URL('../../README.md', import.meta.url)

const ABSOLUTE = /^(https?:|mailto:|#)/i

/** An anchor for a heading's text: lower case, words joined by hyphens. */
function anchor(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'section'
  )
}

/**
 * The README as HTML: raw HTML in it is shown as text, headings of level 2 get anchors (listed
 * as the contents), links and images that point into the repository (relative paths, which have no
 * address on the service) keep only their text.
 */
export function readmeHtml(markdown: string): { title: string; contents: Array<{ id: string; text: string }>; body: string } {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false })
  const tokens = md.parse(markdown, {})
  const contents: Array<{ id: string; text: string }> = []
  const used = new Set<string>()
  let title = 'Documentation'
  tokens.forEach((token, i) => {
    const inline = tokens[i + 1]
    if (token.type === 'heading_open' && inline) {
      // The heading as read: code spans and emphasis without their marks.
      const text = (inline.children ?? []).map((c) => c.content).join('')
      if (token.tag === 'h1' && title === 'Documentation') title = text
      if (token.tag === 'h2') {
        let id = anchor(text)
        for (let n = 2; used.has(id); n++) id = `${anchor(text)}-${n}`
        used.add(id)
        token.attrSet('id', id)
        contents.push({ id, text })
      }
    }
    // A relative image shows its alt text; a relative link its text (links never nest, so the
    // dropped link's close is the next one).
    const asText = { type: 'text', tag: '', attrs: null, children: null }
    let dropping = false
    for (const child of token.children ?? []) {
      if (child.type === 'image' && !ABSOLUTE.test(String(child.attrGet('src') ?? ''))) {
        Object.assign(child, asText)
      } else if (child.type === 'link_open' && !ABSOLUTE.test(String(child.attrGet('href') ?? ''))) {
        Object.assign(child, asText, { content: '' })
        dropping = true
      } else if (child.type === 'link_close' && dropping) {
        Object.assign(child, asText, { content: '' })
        dropping = false
      }
    }
  })
  // The document's own h1 becomes the page's; the rest is rendered as written.
  const firstH1 = tokens.findIndex((t) => t.type === 'heading_open' && t.tag === 'h1')
  if (firstH1 !== -1) tokens.splice(firstH1, 3)
  // Code and tables scroll sideways on a narrow screen, so keyboards must reach them (raw HTML is
  // off: every <pre> and <table> here is the renderer's own).
  const body = md.renderer
    .render(tokens, md.options, {})
    .replaceAll('<pre>', '<pre tabindex="0">')
    .replaceAll('<table>', '<table tabindex="0">')
  return { title, contents, body }
}

/**
 * Long code spans and addresses in the README's prose break where they would widen the page on a
 * phone; tables and code blocks keep their lines and scroll in their own box (break-word, unlike
 * anywhere, leaves a table's narrowest width alone). Added to the layout's style here, as the
 * landing page shares that layout and has no such text.
 */
const DOCS_STYLE = 'main{overflow-wrap:break-word}'

export function docsHtml(config: Pick<Config, 'BASE_URL'>, markdown: string): SafeHtml {
  const doc = readmeHtml(markdown)
  return publicPage({
    style: DOCS_STYLE,
    title: `${doc.title}: documentation`,
    description:
      'How to run, configure and use the Web Presence service: its REST API, MCP server, webhooks, hosted sites, dashboard and assistant widget.',
    canonical: `${config.BASE_URL}/docs`,
    body: html`<h1>${doc.title}</h1>
<nav aria-label="Contents"><h2>Contents</h2><ul>${doc.contents.map((c) => html`<li><a href="#${c.id}">${c.text}</a></li>`)}</ul></nav>
${raw(doc.body)}`,
  })
}

/**
 * The page last rendered, by its base URL and README: rendering the README was a tenth of an app's
 * start, and several apps built in one process (a test worker builds one per file) render the same.
 */
let lastRendered: { key: string; html: SafeHtml } | undefined

function renderedDocs(config: Pick<Config, 'BASE_URL'>, markdown: string): SafeHtml {
  const key = `${config.BASE_URL}\u0000${markdown}`
  if (lastRendered?.key !== key) lastRendered = { key, html: docsHtml(config, markdown) }
  return lastRendered.html
}

/** GET /docs: the service's documentation (the README), rendered once at start. */
export default async function docsRoute(app: FastifyInstance) {
  const page = staticPage(renderedDocs(app.config, readFileSync(README, 'utf8')))
  app.get('/docs', { config: { operation: 'public.docs' }, schema: { hide: true } }, async (request, reply) =>
    sendStaticPage(request, reply, page),
  )
}
