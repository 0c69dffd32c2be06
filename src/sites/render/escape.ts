/** Output escaping for every piece of user content that reaches a page. */

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for element content and for quoted attribute values alike. */
export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML[c]!)
}

/** JSON for a <script type="application/ld+json">: `<`, `>` and `&` escaped so no content can close the element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}
