import type { FastifyReply, FastifyRequest } from 'fastify'
import { compressedAsset, pickEncoding, type CompressedAsset } from './content-encoding.ts'

/*
 * Every HTML page is written with `html` into `documentShell` and sent with `sendPage` (made per
 * request) or `sendStaticPage` (made once per deploy); test/architecture.unit.test.ts refuses
 * another doctype or another way to answer text/html.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and for quoted attribute values alike. */
function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

/** Markup that is already safe: made only by `html` or `raw`, so nothing unescaped slips in by accident. */
export class SafeHtml {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof SafeHtml) return part.value
  if (Array.isArray(part)) return part.map(render).join('')
  return esc(String(part))
}

/** A template whose interpolations are escaped unless they are SafeHtml (arrays are joined). */
export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  let out = strings[0] ?? ''
  parts.forEach((part, i) => (out += render(part) + (strings[i + 1] ?? '')))
  return new SafeHtml(out)
}

/** Trusted markup from our own code (never from a request or the database). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}

const HTML = 'text/html; charset=utf-8'

/** Sends a whole HTML page, made by `html`, that no cache may keep: it carries a CSRF token or a person's own data. */
export function sendPage(reply: FastifyReply, status: number, body: SafeHtml) {
  return reply.code(status).type(HTML).header('cache-control', 'no-store').send(body.value)
}

/** A page that changes only with a deploy, made once: its bytes, br and gzip copies and a strong ETag. */
export type StaticPage = CompressedAsset

export function staticPage(body: SafeHtml): StaticPage {
  return compressedAsset(Buffer.from(body.value, 'utf8'))
}

/** Answers a static page: cacheable for five minutes and revalidated by ETag, in the encoding the client accepts. */
export function sendStaticPage(request: FastifyRequest, reply: FastifyReply, page: StaticPage): FastifyReply {
  reply.header('cache-control', 'public, max-age=300').header('vary', 'accept-encoding').header('etag', page.etag)
  const tags = request.headers['if-none-match']
  if (tags && tags.split(',').some((tag) => tag.trim().replace(/^W\//, '') === page.etag)) return reply.code(304).send()
  const encoding = pickEncoding(request.headers['accept-encoding'])
  if (encoding !== 'identity') reply.header('content-encoding', encoding)
  return reply.type(HTML).send(page[encoding])
}

/** What a page family puts into the one document shell. */
export interface DocumentParts {
  lang: string
  title: string
  /** The family's inline stylesheet (trusted: from our own code). */
  style: string
  /** More of the head after the title: description, links, structured data. */
  head?: SafeHtml
  /** After the stylesheet: a deferred script of our own (the sites' assistant widget). */
  scripts?: SafeHtml
  /** Pages for one person, system and error pages: no search engine lists them. */
  noindex?: boolean
  body: SafeHtml
}

/**
 * The one HTML document every page family is written into (dashboard, sign-in, landing, hosted
 * sites and their system pages): a change of document policy (charset, viewport, language,
 * indexing) is made here once. The architecture test refuses a doctype anywhere else.
 */
export function documentShell(doc: DocumentParts): SafeHtml {
  return html`<!doctype html>
<html lang="${doc.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${doc.noindex ? html`<meta name="robots" content="noindex">` : ''}
<title>${doc.title}</title>${doc.head ?? ''}
<style>${raw(doc.style)}</style>${doc.scripts ?? ''}
</head>
<body>
${doc.body}
</body>
</html>
`
}
