import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { FastifyBaseLogger } from 'fastify'
import { normaliseHostname } from '../domain/sites/sites.ts'
import { genReqId, logAccess, type AccessLabel } from '../infra/logger.ts'
import type { LiveSites } from './live-sites.ts'
import { knownMediaAnswer, MEDIA_PREFIX, mediaScope, type MediaAnswers, type MediaBytesCache } from './media-files.ts'
import { decodePath, fileAnswer, redirectAnswer, type ServeContext } from './serve-file.ts'

/** What the access line names a published site's page by: no route of the service answered it. */
export const HOSTED_PAGE: AccessLabel = { route: 'hosted site', operation: 'sites.page' }

/** What the access line names a media file on the service's own host by: its route's. */
export const OWN_MEDIA: AccessLabel = { route: '/_media/*', operation: 'sites.media' }

/**
 * The host a request names, as Fastify's `request.hostname` reads it (the last X-Forwarded-Host
 * when proxies are trusted, the port and an IPv6 literal's brackets handled alike), normalised.
 */
export function hostOf(req: IncomingMessage, trustProxy: boolean): string {
  // Node joins a repeated X-Forwarded-Host with commas: one string.
  const forwarded = trustProxy ? (req.headers['x-forwarded-host'] as string | undefined) : undefined
  let host: string
  if (forwarded && req.socket != null) {
    const last = forwarded.lastIndexOf(',')
    host = last === -1 ? forwarded.trim() : forwarded.slice(last + 1).trim()
  } else host = req.headers.host ?? ''
  const colon = host.indexOf(':')
  const name = host[0] === '[' ? host.slice(0, host.indexOf(']') + 1) : colon === -1 ? host : host.slice(0, colon)
  return normaliseHostname(name)
}

const checked = Symbol('host checked')

/** Whether the front door already found that no published site answers on this request's host. */
export function knownNotHosted(req: IncomingMessage): boolean {
  return (req as IncomingMessage & { [checked]?: true })[checked] === true
}

export interface FrontDoorOptions {
  live: LiveSites
  /** The service's own hostnames: never a site's. */
  ownHosts: ReadonlySet<string>
  ctx: ServeContext
  trustProxy: boolean
  /** The headers every response of the service starts with (its request id, the security headers). */
  responseHeaders: (requestId: string) => Record<string, string>
  log: FastifyBaseLogger
  /** Hears of each page answered here (a GET or HEAD of an HTML file, 200 or 304): the visitor statistics. */
  onPage?: (req: IncomingMessage, siteId: string, host: string, path: string) => void
  /** The media library's files the router answered recently (media-files.ts): answered again here while fresh. */
  media?: { answers: MediaAnswers; cache: MediaBytesCache }
}

interface Pending {
  reqId: string
  method: string
  start: number
  label: AccessLabel
}

const pending = Symbol('access line')

/**
 * Answers a GET or HEAD for a published site's file before the router runs: the request is
 * recognised by its host alone, and the answer is one of a few header sets fixed per file (see
 * serve-file.ts). Each carries the same bytes as the answer made by the sites plugin's onRequest
 * hook (which serves `app.inject` and everything this leaves to the router); the answer is made
 * straight on Node's response, without the router's request and reply objects, which cost more
 * than the rest of the answer. A redirect of the site for a path without a file is answered here
 * too, and a file of the media library that the router answered on this host within the last
 * MEDIA_FRESH_MS. Anything else (another method, a release not loaded yet, a redirect, a path that
 * does not decode, a media file not known fresh, a closing server) returns false and goes to the router.
 */
export function frontDoor(options: FrontDoorOptions) {
  const { live, ownHosts, ctx, trustProxy, log } = options
  // The complete header list of each variant's answer, in the order the hooks set them, the request id first.
  const wire = new WeakMap<object, Array<string | number>>()
  const wireHeaders = (headers: Record<string, string | number>): Array<string | number> => {
    let list = wire.get(headers)
    if (!list) wire.set(headers, (list = Object.entries({ ...options.responseHeaders(''), ...headers }).flat()))
    return list
  }
  // Writes the access line once the answer is handed over, as the router's requests get theirs.
  function onFinish(this: ServerResponse & { [pending]?: Pending }) {
    const line = this[pending]!
    logAccess(log, line.reqId, line.method, line.label.route, line.label.operation, this.statusCode, performance.now() - line.start)
  }
  /** Sends one answer with a fresh request id (first in the list of `wired` headers) and its access line. */
  function send(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    start: number,
    label: AccessLabel,
    status: number,
    wired: Array<string | number>,
    body: Buffer | undefined,
  ) {
    const reqId = genReqId(req)
    const headers = wired.slice()
    headers[1] = reqId
    ;(res as ServerResponse & { [pending]?: Pending })[pending] = { reqId, method, start, label }
    res.on('finish', onFinish)
    res.writeHead(status, headers)
    res.end(body)
  }
  /** A media file the router answered on this host a moment ago, answered again with the same headers. */
  function media(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: string,
    site: { siteId: string; buildId: string } | undefined,
  ) {
    if (!options.media) return false
    const start = performance.now()
    const answer = knownMediaAnswer(options.media.answers, options.media.cache, mediaScope(site), url, req.headers['if-none-match'])
    if (!answer) return false
    send(req, res, method, start, site ? HOSTED_PAGE : OWN_MEDIA, answer.status, wireHeaders(answer.headers), answer.body)
    return true
  }
  let closing = false

  return {
    /** From now on every request goes to the router (which answers 503 while the server closes). */
    close(): void {
      closing = true
    },
    answer(req: IncomingMessage, res: ServerResponse): boolean {
      const method = req.method
      if ((method !== 'GET' && method !== 'HEAD') || closing) return false
      const host = hostOf(req, trustProxy)
      const own = ownHosts.has(host)
      const hosted = own ? undefined : live.byHost(host)
      const url = req.url ?? '/'
      if (!hosted) {
        ;(req as IncomingMessage & { [checked]?: true })[checked] = true
        // Any host that names no site serves the libraries' files, but only the service's own never names a missing one.
        return own && url.startsWith(MEDIA_PREFIX) && media(req, res, method, url, undefined)
      }
      // The media library's files are read from its storage by the router's hook, then known here for a moment.
      if (url.startsWith(MEDIA_PREFIX)) return media(req, res, method, url, hosted)
      const release = live.loadedRelease(hosted.buildId)
      if (!release) return false
      const decoded = decodePath(req.url ?? '/')
      if (decoded === undefined) return false
      const start = performance.now()
      const moved = redirectAnswer(release, decoded, req.url ?? '/', (path) => live.redirectOf(hosted.siteId, path), ctx)
      if (moved) {
        const reqId = genReqId(req)
        ;(res as ServerResponse & { [pending]?: Pending })[pending] = { reqId, method, start, label: HOSTED_PAGE }
        res.on('finish', onFinish)
        res.writeHead(moved.status, { ...options.responseHeaders(reqId), ...moved.headers })
        res.end()
        return true
      }
      const answer = fileAnswer(release, decoded, req.headers['if-none-match'], req.headers['accept-encoding'], ctx)
      if (!answer) return false
      send(req, res, method, start, HOSTED_PAGE, answer.status, wireHeaders(answer.headers), answer.body)
      if (answer.page && options.onPage) options.onPage(req, hosted.siteId, host, decoded)
      return true
    },
  }
}
