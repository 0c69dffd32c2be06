import cookie from '@fastify/cookie'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { getAccountSite } from '../domain/sites/sites.ts'
import { resolveThemeView, themeView, Theme, type ThemeView } from '../domain/sites/themes.ts'
import { errors } from '../errors.ts'
import { checkedCompiler } from '../infra/unsafe-values.ts'
import { staticAsset } from './assets.ts'
import { renderSite, type RenderPage } from './render/index.ts'
import { loadRenderInput } from './site-input.ts'
import { MEDIA_PREFIX, MediaBytesCache, serveMedia } from './media-files.ts'

/**
 * The unpublished draft of a site exactly as a build would render it (theme, fonts, images), for
 * the people of its account: GET /s/{site_id}/_draft/{path}. It is served on the service's host,
 * so it is sent with CSP `sandbox`: the browser gives it an opaque origin of its own, never the
 * dashboard's, and it runs no script. The theme screen shows it with a theme not saved yet
 * (`?preset=…&brand_color=…&font_pair=…&corners=…`). A site without a home page shows a sample one.
 */

export const DRAFT_SEGMENT = '_draft'

const compile = checkedCompiler(false)
const validTheme = compile(Theme)
const SANDBOX = "sandbox; default-src 'none'; img-src https: data: *; style-src 'unsafe-inline'; font-src *; frame-ancestors 'self'"

/** The theme given in the address, when it is whole and valid; anything else keeps the saved one. */
function themeFromQuery(query: Record<string, unknown>, saved: ThemeView): ThemeView {
  const asked = { ...saved }
  for (const key of ['preset', 'brand_color', 'font_pair', 'corners'] as const) {
    const value = query[key]
    if (typeof value === 'string' && value !== '')
      (asked as Record<string, string>)[key] = key === 'brand_color' ? value.toLowerCase() : value
  }
  return validTheme(asked) ? asked : saved
}

function samplePage(name: string, locale: RenderPage['locale']): RenderPage {
  const words = {
    en: ['Welcome to', 'This is how your pages will look. Add a page to see your own words here.', 'What we offer', 'Get in touch'],
    de: [
      'Willkommen bei',
      'So werden Ihre Seiten aussehen. Legen Sie eine Seite an, um hier Ihre eigenen Worte zu sehen.',
      'Unser Angebot',
      'Kontakt aufnehmen',
    ],
    fr: [
      'Bienvenue chez',
      'Voici à quoi ressembleront vos pages. Ajoutez une page pour voir ici vos propres mots.',
      'Ce que nous proposons',
      'Nous contacter',
    ],
  }[locale]
  return {
    path: '/',
    locale,
    title: name,
    description: words[1]!,
    updatedAt: new Date(0),
    blocks: [
      { type: 'hero', content: { heading: `${words[0]} ${name}`, subheading: words[1]!, cta: { label: words[3]!, href: '/' } } },
      { type: 'features', content: { heading: words[2]!, items: [1, 2, 3].map((n) => ({ title: `${words[2]} ${n}`, text: words[1]! })) } },
    ],
  }
}

function sandboxed(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', SANDBOX)
    .header('x-frame-options', 'SAMEORIGIN')
    .header('x-robots-tag', 'noindex')
    .header('cache-control', 'no-store')
}

export default async function draftPreviewRoutes(app: FastifyInstance) {
  const previewCache = new MediaBytesCache(8 * 1024 * 1024)
  await app.register(cookie)
  const Params = Type.Object({ siteId: Type.String({ pattern: '^site_[A-Za-z0-9_-]{1,64}$' }), '*': Type.String() })

  app.get(
    `/s/:siteId/${DRAFT_SEGMENT}/*`,
    { config: { operation: 'sites.draft_preview' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const { siteId, '*': rest } = request.params as { siteId: string; '*': string }
      const path = `/${rest}`
      // Fonts and illustrations are public: answered to the sandboxed page's opaque origin too.
      const asset = staticAsset(path)
      if (asset)
        return reply
          .header('content-type', asset.contentType)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('access-control-allow-origin', '*')
          .header('etag', asset.etag)
          .send(asset.body)
      const person = await app.frame.session(request)
      if (!person) return reply.redirect(`/signin?return_to=${encodeURIComponent(request.url)}`, 303)
      const site = await getAccountSite(app.db, person.accountId, siteId)
      if (!site) throw new errors.notFound('There is no such site in your account')
      // The draft's library images: in the site's account's library (no release needed).
      if (path.startsWith(MEDIA_PREFIX))
        return serveMedia(
          request,
          reply,
          { db: app.db, storage: app.mediaStorage, cache: previewCache, headers: {} },
          { siteId, buildId: '' },
          path,
        )
      const input = await loadRenderInput(app.db, app.config, siteId, new Date())
      if (!input) throw new errors.notFound('There is no such site in your account')
      const theme = themeFromQuery(request.query as Record<string, unknown>, themeView(site.settings))
      const draft = { ...input.site, theme: resolveThemeView(theme) }
      const pages = input.pages.some((p) => p.locale === draft.defaultLocale && p.path === '/')
        ? input.pages
        : [...input.pages, samplePage(site.name, draft.defaultLocale)]
      const files = renderSite(draft, pages)
      const file = files.find((f) => f.path === path) ?? files.find((f) => f.path === `${path}/`)
      sandboxed(reply)
      const notFound = files.find((f) => f.path === '/404.html')
      if (!file)
        return reply
          .code(404)
          .type(notFound?.contentType ?? 'text/plain; charset=utf-8')
          .send(notFound?.body ?? 'Not found')
      return reply.type(file.contentType).send(file.body)
    },
  )
}
