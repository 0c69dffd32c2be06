import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { leadConsentFor } from '../domain/leads/consent.ts'
import { insertLead } from '../domain/leads/leads.ts'
import { isLocale } from '../domain/locales.ts'
import { findSiteById } from '../domain/sites/sites.ts'
import { errors } from '../errors.ts'
import { html, raw, sendPage } from '../infra/html.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { formTokenValid } from './form-token.ts'
import { siteOfRequest } from './hosted-site.ts'
import type { LiveSites } from './live-sites.ts'
import { LABELS } from './render/labels.ts'
import { pageUrlPath } from './render/paths.ts'
import { CSS } from './render/style.ts'

const ContactBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 1000 }),
    locale: Type.String({ minLength: 2, maxLength: 5 }),
    page: Type.String({ pattern: '^/[a-z0-9._/-]{0,300}$' }),
    consent_version: Type.String({ minLength: 1, maxLength: 50 }),
    consent_digest: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    consent: Type.Optional(Type.Literal('yes')),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.String({ format: 'email', minLength: 3, maxLength: 254 }),
    message: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
)
type ContactBody = Static<typeof ContactBody>

/**
 * The post must come from a page of the very origin it is sent to (CSRF). A browser says so in
 * Sec-Fetch-Site, which no page can set; where it sends none, the Origin header, or failing that
 * the Referer, must name this host. Under `Referrer-Policy: no-referrer` (the service's own
 * pages' policy, or a visitor's browser settings) a browser sends `Origin: null` even for the
 * page's own form, so Sec-Fetch-Site is read first.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin'
  const from = request.headers.origin ?? request.headers.referer
  if (!from || from === 'null') return false
  try {
    return new URL(from).host.toLowerCase() === request.host.toLowerCase()
  } catch {
    return false
  }
}

/**
 * POST /_wps/forms/contact on a hosted site's own origin (and under its preview prefix): a
 * contact-form post becomes a lead of the site, with the consent the form showed. Works without
 * JavaScript: the answer is a page.
 */
export default async function contactFormRoutes(app: FastifyInstance, options: { live: LiveSites }) {
  const { live } = options
  const handler = async (request: FastifyRequest<{ Body: ContactBody }>, reply: import('fastify').FastifyReply) => {
    const origin = siteOfRequest(request, live)
    if (!origin) throw new errors.notFound('No published site answers here')
    if (!sameOrigin(request)) throw new errors.forbidden('The form must be sent from the site itself')
    const body = request.body
    if (!formTokenValid(app.keyring, body.token, origin.siteId)) throw new errors.forbidden('The form is not one of this site; reload the page and send it again')
    const site = await findSiteById(app.db, origin.siteId)
    if (!site) throw new errors.notFound('No published site answers here')
    const locale = body.locale
    if (!isLocale(locale) || !site.locales.includes(locale)) throw new errors.validationFailed('locale: the site does not speak this language')
    if (body.consent !== 'yes') throw new errors.validationFailed('consent: please agree to the consent text to send the form')
    const consent = leadConsentFor(site.settings ?? {}, locale)
    if (body.consent_version !== consent.version || body.consent_digest !== consent.digest) {
      throw new errors.conflict('The consent text has changed since the page was loaded; reload the page and send the form again')
    }
    await insertLead(app.db, app.keyring, {
      siteId: site.id,
      sessionId: null,
      email: body.email.trim(),
      name: body.name?.trim() || undefined,
      note: body.message?.trim() || undefined,
      consent: { version: consent.version, digest: consent.digest, locale, acceptedAt: new Date() },
      source: 'contact_form',
    })
    const l = LABELS[locale]
    const back = `${origin.prefix}${pageUrlPath(locale, body.page, site.default_locale)}`
    const page = html`<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${l.thanksTitle} – ${site.name}</title><style>${raw(CSS)}</style></head><body><main id="main"><h1>${l.thanksTitle}</h1><p>${l.thanksText}</p><p><a href="${back}">${l.back}</a></p></main></body></html>`
    return sendPage(reply, 200, page)
  }
  const route = {
    config: { operation: 'sites.contact_form', ...routeLimit(app.config, 'sites.contact_form') },
    schema: { hide: true, body: ContactBody },
  }
  app.post('/_wps/forms/contact', route, handler)
  app.post('/s/:siteId/_wps/forms/contact', route, handler)
}
