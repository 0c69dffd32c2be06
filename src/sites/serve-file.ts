import type { FastifyReply, FastifyRequest } from 'fastify'
import { pickEncoding } from '../infra/content-encoding.ts'
import { isLocale } from '../domain/locales.ts'
import { NOT_FOUND_PATH } from './render/index.ts'
import type { Release } from './live-sites.ts'
import type { ReleaseFile } from './release-store.ts'
import { isStaticAsset, staticAsset } from './assets.ts'

/** How a release is being served: on its own domain, or under the preview prefix. */
export interface ServeContext {
  /** '' on a domain, '/s/{site_id}' for a preview. */
  prefix: string
  /** Headers every answer of hosted pages carries (their own security policy). */
  headers: Record<string, string>
}

type Encoding = 'br' | 'gzip' | 'identity'
type Variant = 'br' | 'gzip' | 'identity' | 'not-modified' | 'not-found' | 'stamped'

/** Makes the form token of a page as it is served (its time in it): see form-token.ts. */
export type FormStamp = () => string

/**
 * The complete header set of each way a file is answered, made on first use and kept with the
 * (immutable) file, so a request sets its headers in one call.
 */
const headerCache = new WeakMap<ServeContext, WeakMap<ReleaseFile, Partial<Record<Variant, Record<string, string | number>>>>>()

function headersFor(ctx: ServeContext, file: ReleaseFile, variant: Variant): Record<string, string | number> {
  let byFile = headerCache.get(ctx)
  if (!byFile) headerCache.set(ctx, (byFile = new WeakMap()))
  let variants = byFile.get(file)
  if (!variants) byFile.set(file, (variants = {}))
  let headers = variants[variant]
  if (!headers) {
    headers =
      variant === 'stamped'
        ? // Its bytes differ on every answer: no ETag, and no cache may keep the token.
          { ...ctx.headers, 'cache-control': 'no-store' }
        : {
            ...ctx.headers,
            etag: file.etag,
            vary: 'accept-encoding',
            'cache-control': variant === 'not-found' ? CACHE_NOT_FOUND : isStaticAsset(file) ? CACHE_ASSET : CACHE_PAGE,
          }
    if (file.contentType.startsWith('text/html')) headers['link'] = `<${ctx.prefix}/_wps/webmention>; rel="webmention"`
    if (variant === 'stamped') headers['content-type'] = file.contentType
    else if (variant !== 'not-modified') {
      const encoding: Encoding = variant === 'br' || variant === 'gzip' ? variant : 'identity'
      headers['content-type'] = file.contentType
      headers['content-length'] = file[encoding === 'identity' ? 'body' : encoding].length
      if (encoding !== 'identity') headers['content-encoding'] = encoding
    }
    variants[variant] = headers
  }
  return headers
}

// Pages change only when a build goes live: caches may keep them briefly but must revalidate (a 304 is cheap).
const CACHE_PAGE = 'public, max-age=60, must-revalidate'
const CACHE_NOT_FOUND = 'public, max-age=60'
// Fonts and illustrations carry their content's hash in their address (assets.ts).
const CACHE_ASSET = 'public, max-age=31536000, immutable'

/** RFC 9110 13.1.2: If-None-Match holds `*` or a list of (weak or strong) tags compared weakly. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}

/** The file a path names: itself, or the page beside a trailing-slash variant (answered with a redirect). */
function locate(release: Release, path: string): { file: ReleaseFile } | { redirect: string } | undefined {
  const file = release.get(path)
  if (file) return { file }
  if (path.endsWith('/') && path.length > 1 && release.has(path.slice(0, -1))) return { redirect: path.slice(0, -1) }
  if (!path.endsWith('/') && release.has(`${path}/`)) return { redirect: `${path}/` }
  // '/en/privacy' where English is the default locale, which lives at the root ('/privacy'): a
  // link written for any locale (the consent's default privacy link, in the assistant's widget
  // too) finds the page. A locale the release has a home for keeps its own 404.
  const prefixed = /^\/([a-z]{2})(\/.*)$/.exec(path)
  if (prefixed && isLocale(prefixed[1]) && !release.has(`/${prefixed[1]}/`) && release.has(prefixed[2]!)) return { redirect: prefixed[2]! }
  return undefined
}

/** The path of a request target, percent-decoded; undefined when it does not decode. */
export function decodePath(raw: string): string | undefined {
  const end = raw.search(/[?#]/)
  try {
    return decodeURIComponent(end === -1 ? raw : raw.slice(0, end))
  } catch {
    return undefined
  }
}

/** How a file of a release answers a request: status, the header set of its variant, the body if any. */
export interface FileAnswer {
  status: 200 | 304 | 404
  headers: Record<string, string | number>
  body: Buffer | undefined
  /** A page was answered (an HTML file, 200 or 304): a view the statistics count when a browser asked for it. */
  page: boolean
}

/**
 * The answer from a release's files to a (decoded) path: the file with a strong ETag, 304 when the
 * client has it, the br or gzip copy the client accepts, the release's 404 page for anything else.
 * Undefined when it is no file's answer: a redirect to the trailing-slash variant, or a release
 * without a 404 page; also a page with a contact form when no `stamp` is given (it is answered
 * where its token can be made, uncompressed, stamped with the time it is served).
 */
export function fileAnswer(
  release: Release,
  decoded: string | undefined,
  ifNoneMatch: string | undefined,
  acceptEncoding: string | undefined,
  ctx: ServeContext,
  stamp?: FormStamp,
): FileAnswer | undefined {
  const found = decoded === undefined ? undefined : (release.get(decoded) ?? staticAsset(decoded))
  if (found?.stamped) return stamp && stampedAnswer(ctx, found, found.stamped, stamp)
  if (!found) {
    if (decoded !== undefined && locate(release, decoded)) return undefined
    const page = release.get(NOT_FOUND_PATH)
    // The 404 page is small and answered uncompressed.
    return page && { status: 404, headers: headersFor(ctx, page, 'not-found'), body: page.body, page: false }
  }
  const page = found.contentType.startsWith('text/html')
  if (notModified(ifNoneMatch, found.etag)) return { status: 304, headers: headersFor(ctx, found, 'not-modified'), body: undefined, page }
  // A file already compressed (a woff2 font) keeps the same bytes as its copies: answered as it is.
  const encoding = found.br === found.body ? 'identity' : pickEncoding(acceptEncoding)
  return {
    status: 200,
    headers: headersFor(ctx, found, encoding),
    body: encoding === 'br' ? found.br : encoding === 'gzip' ? found.gzip : found.body,
    page,
  }
}

function stampedAnswer(ctx: ServeContext, file: ReleaseFile, parts: { before: Buffer; after: Buffer }, stamp: FormStamp): FileAnswer {
  const body = Buffer.concat([parts.before, Buffer.from(stamp()), parts.after])
  return { status: 200, headers: { ...headersFor(ctx, file, 'stamped'), 'content-length': body.length }, body, page: true }
}

/**
 * Answers a GET or HEAD from a release (see `fileAnswer`), or with a redirect or a plain 404;
 * `viewed` hears of each page answered (with its decoded path).
 */
export function serveFromRelease(
  request: FastifyRequest,
  reply: FastifyReply,
  release: Release,
  path: string,
  ctx: ServeContext,
  stamp: FormStamp,
  viewed?: (path: string) => void,
): FastifyReply {
  const decoded = decodePath(path)
  const answer = fileAnswer(release, decoded, request.headers['if-none-match'], request.headers['accept-encoding'], ctx, stamp)
  if (answer) {
    reply.code(answer.status).headers(answer.headers).send(answer.body)
    if (answer.page && viewed) viewed(decoded!)
    return reply
  }
  const found = decoded === undefined ? undefined : locate(release, decoded)
  if (found && 'redirect' in found)
    return reply
      .code(301)
      .headers(ctx.headers)
      .header('location', `${ctx.prefix}${found.redirect}`)
      .header('cache-control', CACHE_NOT_FOUND)
      .send()
  return reply.code(404).headers(ctx.headers).type('text/plain; charset=utf-8').send('Not found')
}

/** How a site's own redirect is answered: its status and where it leads. */
export interface RedirectAnswer {
  status: 301 | 302
  location: string
  headers: Record<string, string>
}

/**
 * A redirect of the site (DESIGN.md 19) for a path its release has no file for (nor a
 * trailing-slash variant): a page published at the address wins over a redirect. A target on the
 * same site keeps the request's query unless it names its own.
 */
export function redirectAnswer(
  release: Release,
  decoded: string,
  rawUrl: string,
  lookup: (path: string) => { to: string; status: 301 | 302 } | undefined,
  ctx: ServeContext,
): RedirectAnswer | undefined {
  if (release.has(decoded) || release.has(decoded.endsWith('/') ? decoded.slice(0, -1) : `${decoded}/`)) return undefined
  const target = lookup(decoded)
  if (!target) return undefined
  const query = rawUrl.indexOf('?')
  const location = target.to.startsWith('/') && !target.to.includes('?') && query !== -1 ? target.to + rawUrl.slice(query) : target.to
  return {
    status: target.status,
    location,
    headers: { ...ctx.headers, location, 'cache-control': target.status === 301 ? CACHE_MOVED : 'no-cache' },
  }
}

// A moved page's redirect may be removed again by its owner: browsers keep it for an hour only.
const CACHE_MOVED = 'public, max-age=3600'
