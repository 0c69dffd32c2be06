const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:'])

/**
 * A link target that cannot run script: absolute http(s), mailto and tel URLs, root-relative and
 * relative paths and fragments. Anything else (javascript:, data:, vbscript:, obfuscated with
 * control characters or entities) answers undefined.
 */
export function safeHref(raw: string): string | undefined {
  // Browsers drop tabs and newlines inside URLs and trim control characters and spaces at the ends.
  // eslint-disable-next-line no-control-regex
  const href = raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')
  if (href === '' || /[\u0000-\u001f\\]/.test(href)) return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)
  if (scheme) {
    if (!SAFE_SCHEMES.has(scheme[1]!.toLowerCase() + ':')) return undefined
    try {
      new URL(href)
    } catch {
      return undefined
    }
    return href
  }
  // Protocol-relative URLs are absolute URLs on an unknown scheme; refuse them too.
  if (href.startsWith('//')) return undefined
  return href
}

/** An image address: http(s) or a path on the site; never data: or script URLs. */
export function safeImageSrc(raw: string): string | undefined {
  const href = safeHref(raw)
  return href && !/^(mailto|tel):/i.test(href) ? href : undefined
}
