import type { FastifyReply } from 'fastify'

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and for quoted attribute values alike. */
export function esc(value: string): string {
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

/** Sends a whole HTML page, made by `html`, that no cache may keep: it carries a CSRF token or a person's own data. */
export function sendPage(reply: FastifyReply, status: number, body: SafeHtml) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body.value)
}
