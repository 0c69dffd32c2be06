import type { IncomingMessage, ServerResponse } from 'node:http'
import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { Type } from 'typebox'
import { errors } from '../errors.ts'
import { labelAccess } from '../infra/logger.ts'
import contactFormRoutes from './contact-form.ts'
import { signFormToken } from './form-token.ts'
import { frontDoor, HOSTED_PAGE, knownNotHosted } from './front-door.ts'
import { requestHostname } from './hosted-site.ts'
import { LiveSites, type Release } from './live-sites.ts'
import { MEDIA_PREFIX, MediaAnswers, MediaBytesCache, serveMedia, type MediaServing } from './media-files.ts'
import { sendNoSitePage, wantsPage } from './no-site-page.ts'
import { decodePath, redirectAnswer, serveFromRelease, type ServeContext } from './serve-file.ts'
import { clientAddress, countPageView } from './page-views.ts'
import { VisitTally } from '../domain/stats/tally.ts'
import webmentionRoutes from './webmention.ts'
import draftPreviewRoutes from './draft-preview.ts'

declare module 'fastify' {
  interface FastifyInstance {
    liveSites: LiveSites
  }
}

/**
 * HSTS on a site's hosts: a site's own domain may be an apex whose other subdomains are the
 * customer's, not ours, so its answers ask for https on that very host only (includeSubDomains
 * would bind every subdomain of it for a year).
 */
const HOSTED_HSTS = 'max-age=31536000'

/** Paths a hosted domain answers with routes rather than files: the form and Webmention endpoints. */
const ENDPOINTS = '/_wps/'

/**
 * The security policy of hosted pages: their own inline CSS and JSON-LD, images from anywhere on
 * https, scripts only from the service (the assistant widget), which talks to the service.
 */
function hostedHeaders(baseUrl: string, apiUrl: string): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "img-src 'self' https: data:",
    "style-src 'self' 'unsafe-inline'",
    `script-src 'self' ${baseUrl}`,
    `connect-src 'self' ${[...new Set([baseUrl, apiUrl])].join(' ')}`,
    "form-action 'self'",
    "frame-ancestors 'self'",
    "object-src 'none'",
  ].join('; ')
  // The service's own pages send no referrer at all; a site's pages name themselves to their own
  // origin, so a browser's post of the contact form carries an Origin that names the site.
  return { 'content-security-policy': csp, 'x-frame-options': 'SAMEORIGIN', 'referrer-policy': 'same-origin' }
}

/** Routes of the hosted sites that live on the service's own host: the preview and the TLS check. */
async function serviceRoutes(app: FastifyInstance, options: { live: LiveSites; headers: Record<string, string>; media: MediaServing }) {
  const { live } = options

  // The media library's files on the service's own host: the dashboard, the preview and the API's links show them.
  app.get('/_media/*', { config: { operation: 'sites.media' }, schema: { hide: true } }, async (request, reply) =>
    serveMedia(request, reply, { ...options.media, headers: {} }, undefined),
  )
  // A preview is owner content on the dashboard's origin: the sandbox gives it an opaque origin of its own, so
  // no script of it could ever act as the dashboard (its cookies, its forms); its links, contact form and the
  // assistant's widget still work (the agent API answers the opaque origin for a preview's own page, agent/index.ts).
  const previewHeaders = {
    ...options.headers,
    'content-security-policy': `${options.headers['content-security-policy']}; sandbox allow-forms allow-scripts allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation`,
    'x-robots-tag': 'noindex',
  }
  const SiteParams = Type.Object({ siteId: Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' }) })

  app.get('/s/:siteId', { config: { operation: 'sites.preview' }, schema: { hide: true, params: SiteParams } }, async (request, reply) => {
    const { siteId } = request.params as { siteId: string }
    return reply.code(301).header('location', `/s/${siteId}/`).send()
  })

  app.get(
    '/s/:siteId/*',
    {
      config: { operation: 'sites.preview' },
      schema: { hide: true, params: Type.Object({ siteId: SiteParams.properties.siteId, '*': Type.String() }) },
    },
    async (request, reply) => {
      const { siteId } = request.params as { siteId: string; '*': string }
      const buildId = await live.previewBuild(siteId)
      if (!buildId) {
        if (!wantsPage(request)) throw new errors.notFound('This site has no build to preview yet')
        const text = "Its pages show here once it has been published. Publish it from the site's page in the dashboard."
        return sendNoSitePage(reply, { title: 'This site is not published yet', text, dashboard: `${app.config.BASE_URL}/app` })
      }
      const rest = request.url.slice(`/s/${siteId}`.length)
      // The preview's pages show the library's images under its prefix, as a site's host does at its root.
      if (rest.startsWith(MEDIA_PREFIX)) return serveMedia(request, reply, { ...options.media, headers: {} }, { siteId, buildId }, rest)
      const release = await live.release(buildId)
      const stamp = () => signFormToken(app.keyring, siteId)
      return serveFromRelease(request, reply, release, rest, { prefix: `/s/${siteId}`, headers: previewHeaders }, stamp)
    },
  )

  app.get(
    '/internal/tls-allowed',
    {
      config: { operation: 'sites.tls_allowed' },
      schema: {
        summary: 'Whether a certificate may be issued for a domain (Caddy on-demand TLS)',
        tags: ['hosted sites'],
        querystring: Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253 }) }),
        response: { 200: Type.Object({ allowed: Type.Literal(true) }), 404: Type.Object({ allowed: Type.Literal(false) }) },
      },
    },
    async (request, reply) => {
      const { domain } = request.query as { domain: string }
      const allowed = live.byHost(domain.toLowerCase().replace(/\.$/, '')) !== undefined
      return allowed ? { allowed: true as const } : reply.code(404).send({ allowed: false as const })
    },
  )
}

/**
 * Hosted sites: the build job, serving by Host header (an active domain or a platform subdomain,
 * before any other route, and never for the service's own hostnames), the preview under /s/{site_id}/, contact forms and Webmentions.
 */
async function hostedSites(app: FastifyInstance) {
  const { config } = app
  const log = app.log as unknown as Logger
  const live = new LiveSites(app.db, log.child({ component: 'hosted-sites' }), config.SITES_DOMAIN)
  app.decorate('liveSites', live)
  const headers = hostedHeaders(config.BASE_URL, config.API_URL)
  const domainHeaders = { ...headers, 'strict-transport-security': HOSTED_HSTS }
  const ownHosts = new Set([new URL(config.BASE_URL).hostname, new URL(config.API_URL).hostname].map((h) => h.toLowerCase()))
  const domainContext: ServeContext = { prefix: '', headers: domainHeaders }
  const media: MediaServing = {
    db: app.db,
    storage: app.mediaStorage,
    cache: new MediaBytesCache(),
    headers: domainHeaders,
    answers: new MediaAnswers(),
  }

  app.addHook('onReady', () => live.start(app.store))
  app.addHook('onClose', () => live.stop())

  // Visitor statistics (DESIGN.md 18): counted in memory as pages are answered, flushed to the
  // daily roll-ups every few seconds and once more on shutdown.
  const tally = config.VISITOR_STATS ? new VisitTally(app.db, { log: log.child({ component: 'visitor-stats' }) }) : undefined
  if (tally) {
    app.addHook('onReady', () => tally.start(config.STATS_FLUSH_INTERVAL_MS))
    app.addHook('onClose', () => tally.stop())
  }

  // A page of a published site is answered before the router (front-door.ts); what that leaves to
  // the router, and every injected request, is answered by the hook below, with the same bytes.
  const door = frontDoor({
    live,
    ownHosts,
    ctx: domainContext,
    trustProxy: config.TRUST_PROXY,
    responseHeaders: app.responseHeaders,
    log: app.log,
    onPage: tally && ((req, siteId, host, path) => countPageView(tally, req, siteId, host, path, clientAddress(req, config.TRUST_PROXY))),
    media: { answers: media.answers!, cache: media.cache },
  })
  const [routing, ...others] = app.server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>
  if (routing && others.length === 0) {
    app.server.removeListener('request', routing)
    app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!door.answer(req, res)) routing(req, res)
    })
  }
  app.addHook('preClose', (done) => {
    door.close()
    done()
  })

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const { method, url } = request
    const browsing = (method === 'GET' || method === 'HEAD') && wantsPage(request)
    // The front door found no site on this host already; only a browser's page needs to know more.
    if (knownNotHosted(request.raw) && !browsing) return done()
    const hostname = requestHostname(request)
    const hosted = ownHosts.has(hostname) ? undefined : live.byHost(hostname)
    if (!hosted) {
      // An address under the platform's domain is a site's or nobody's: a browser hears that in words.
      if (!browsing || ownHosts.has(hostname) || !hostname.endsWith(`.${config.SITES_DOMAIN}`)) return done()
      const text = `No published site has the address ${hostname}. If the site is yours, check its address in its settings, or publish it.`
      return void sendNoSitePage(reply, { title: 'No site at this address', text, dashboard: `${config.BASE_URL}/app` })
    }
    reply.header('strict-transport-security', HOSTED_HSTS)
    if (url.startsWith(ENDPOINTS) && method === 'POST') return done()
    labelAccess(request.raw, HOSTED_PAGE)
    if (method !== 'GET' && method !== 'HEAD') {
      reply.header('allow', 'GET, HEAD')
      return done(new errors.methodNotAllowed('A published site answers GET and HEAD only'))
    }
    if (url.startsWith(MEDIA_PREFIX)) {
      serveMedia(request, reply, media, hosted).catch((error: unknown) => done(error as Error))
      return
    }
    const viewed = tally && ((path: string) => countPageView(tally, request.raw, hosted.siteId, hostname, path, request.ip))
    const serve = (files: Release) => {
      const decoded = decodePath(url)
      const moved =
        decoded === undefined
          ? undefined
          : redirectAnswer(files, decoded, url, (path) => live.redirectOf(hosted.siteId, path), domainContext)
      if (moved) return void reply.code(moved.status).headers(moved.headers).send()
      serveFromRelease(request, reply, files, url, domainContext, () => signFormToken(app.keyring, hosted.siteId), viewed)
    }
    const release = live.release(hosted.buildId)
    if (release instanceof Map) return serve(release)
    release.then(
      (files) => serve(files),
      (error: unknown) => done(error as Error),
    )
  })

  await app.register(async (scope) => {
    if (!scope.hasContentTypeParser('application/x-www-form-urlencoded')) await scope.register(formbody, { bodyLimit: 16_384 })
    await scope.register(serviceRoutes, { live, headers, media })
    await scope.register(contactFormRoutes, { live })
    await scope.register(webmentionRoutes, { live })
  })
  await app.register(draftPreviewRoutes)
}

export default fp(hostedSites, { name: 'hosted-sites', dependencies: ['core', 'security'] })
