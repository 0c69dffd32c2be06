import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import { leadConsentFor } from '../domain/leads/consent.ts'
import { insertLead } from '../domain/leads/leads.ts'
import { isLocale, type Locale } from '../domain/locales.ts'
import { findSiteById } from '../domain/sites/sites.ts'
import { contactMessagesSince } from '../domain/leads/leads.ts'
import { errors, withHeaders } from '../errors.ts'
import { html, sendPage } from '../infra/html.ts'
import { routeLimit } from '../infra/rate-limit/budgets.ts'
import { checkFormToken, signFormToken } from './form-token.ts'
import { siteOfRequest, type SiteOrigin } from './hosted-site.ts'
import { plainSitePage, wantsPage } from './no-site-page.ts'
import type { LiveSites } from './live-sites.ts'
import { contactForm, type ContactField, type FormFill } from './render/blocks.ts'
import { LABELS } from './render/labels.ts'
import { consentLinkInLayout, pageUrlPath } from './render/paths.ts'

/** The hidden field of the form that people never see (render/blocks.ts): filled in, the post is a script's. */
const HONEYPOT = 'website'
/** Contact-form messages a site takes in an hour; more are refused (429) with the form shown again, nothing lost. */
export const MESSAGES_PER_HOUR = 30

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
    /** The honeypot: hidden from people, so only a script fills it in (see render/blocks.ts). */
    [HONEYPOT]: Type.Optional(Type.String({ maxLength: 5000 })),
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
function sameOrigin(request: FastifyRequest, origin: SiteOrigin): boolean {
  // The preview is sandboxed (an opaque origin of its own, sites/index.ts): its form posts say `Origin: null`.
  if (origin.prefix !== '' && request.headers.origin === 'null') return true
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

/** What the form page says when a post is refused, in the page's language. */
const REFUSAL: Record<
  Locale,
  {
    title: string
    email: string
    tooLong: (max: number) => string
    consent: string
    reload: string
    consentChanged: string
    tooSoon: string
    busy: string
  }
> = {
  en: {
    title: 'Your message was not sent',
    email: 'Enter your email address, like name@example.com.',
    tooLong: (max) => `Use at most ${max} characters.`,
    consent: 'Tick the box to agree, so that we may answer you.',
    reload: 'This form is out of date. Your text is still below: send it again.',
    consentChanged: 'The consent text has changed since you opened the page. Read it again below, then send your message.',
    tooSoon: 'That was very quick. Check your message below, then send it again.',
    busy: 'This site has received a great many messages in the last hour. Your text is still below: please send it again later.',
  },
  de: {
    title: 'Ihre Nachricht wurde nicht gesendet',
    email: 'Geben Sie Ihre E-Mail-Adresse ein, etwa name@example.com.',
    tooLong: (max) => `Höchstens ${max} Zeichen.`,
    consent: 'Setzen Sie das Häkchen, damit wir Ihnen antworten dürfen.',
    reload: 'Dieses Formular ist veraltet. Ihr Text steht noch unten: Senden Sie ihn erneut.',
    consentChanged:
      'Der Einwilligungstext hat sich geändert, seit Sie die Seite geöffnet haben. Lesen Sie ihn unten erneut und senden Sie dann Ihre Nachricht.',
    tooSoon: 'Das ging sehr schnell. Prüfen Sie Ihre Nachricht unten und senden Sie sie dann erneut.',
    busy: 'Diese Website hat in der letzten Stunde sehr viele Nachrichten erhalten. Ihr Text steht noch unten: Bitte senden Sie ihn später erneut.',
  },
  fr: {
    title: "Votre message n'a pas été envoyé",
    email: 'Saisissez votre adresse e-mail, par exemple nom@example.com.',
    tooLong: (max) => `${max} caractères au plus.`,
    consent: 'Cochez la case pour accepter, afin que nous puissions vous répondre.',
    reload: 'Ce formulaire est périmé. Votre texte est toujours ci-dessous : envoyez-le à nouveau.',
    consentChanged:
      'Le texte de consentement a changé depuis que vous avez ouvert la page. Relisez-le ci-dessous, puis envoyez votre message.',
    tooSoon: 'C’était très rapide. Vérifiez votre message ci-dessous, puis envoyez-le à nouveau.',
    busy: 'Ce site a reçu un très grand nombre de messages au cours de la dernière heure. Votre texte est toujours ci-dessous : renvoyez-le plus tard.',
  },
}

type Words = (typeof REFUSAL)[Locale]

/**
 * Where a refused post goes wrong: the fields the visitor can mend, or the form itself; worded in
 * the language of the page that shows it.
 */
interface Refusal {
  status: number
  fields: Partial<Record<ContactField, (words: Words) => string>>
  /** Said above the form when no field is to blame. */
  general?: 'reload' | 'consentChanged' | 'tooSoon' | 'busy'
}

/** A problem the schema found: where, and what is missing when a field is. */
type SchemaProblem = { instancePath: string; params: object }

/**
 * Every problem of a refused post: each field of the visitor's with what to do about it, and,
 * where a field of the form itself is wrong (a page from an older release), a word to send again.
 * The router's validator stops at the first problem; TypeBox lists them all, so the visitor
 * hears of every field at once.
 */
function problemsOf(body: unknown, first: SchemaProblem[]): Refusal {
  const refusal: Refusal = { status: 400, fields: {} }
  for (const problem of [...first, ...Value.Errors(ContactBody, body)]) {
    const missing = (problem.params as { missingProperty?: unknown }).missingProperty
    const field = problem.instancePath.slice(1) || String(missing ?? '')
    if (field === 'email') refusal.fields.email = (words) => words.email
    else if (field === 'consent') refusal.fields.consent = (words) => words.consent
    else if (field === 'name' || field === 'message') refusal.fields[field] = (words) => words.tooLong(field === 'name' ? 200 : 5000)
    else refusal.general = 'reload'
  }
  return refusal
}

/** The visitor's own fields of a post, as text, whatever else is wrong with it. */
function sentValues(body: unknown): FormFill['values'] {
  const sent = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const text = (name: string) => (typeof sent[name] === 'string' ? (sent[name] as string) : undefined)
  return { name: text('name'), email: text('email'), message: text('message'), consent: sent['consent'] === 'yes' }
}

/**
 * POST /_wps/forms/contact on a hosted site's own origin (and under its preview prefix): a
 * contact-form post becomes a lead of the site, with the consent the form showed. Works without
 * JavaScript: the answer is a page. A post the browser sends that cannot be taken is answered with
 * the form again, holding what the visitor typed, each problem said above its field.
 */
export default async function contactFormRoutes(app: FastifyInstance, options: { live: LiveSites }) {
  const { live } = options

  /** The refusal as the form again (for a browser) or as the problem it was (for anyone else). */
  async function refuse(request: FastifyRequest, reply: FastifyReply, origin: SiteOrigin, refusal: Refusal, problem: Error) {
    const site = wantsPage(request) ? await findSiteById(app.db, origin.siteId) : undefined
    if (!site) throw problem
    const asked = (request.body as { locale?: unknown } | undefined)?.locale
    const locale = isLocale(asked) && site.locales.includes(asked) ? asked : site.default_locale
    const sent = request.body as { page?: unknown } | undefined
    const pagePath = typeof sent?.page === 'string' && /^\/[a-z0-9._/-]{0,300}$/.test(sent.page) ? sent.page : '/'
    const words = REFUSAL[locale]
    const consent = leadConsentFor(site.settings ?? {}, locale)
    const from = '/_wps/forms/contact'
    const form = contactForm(
      {},
      {
        from,
        locale,
        isH1: false,
        index: 0,
        firstImage: false,
        formToken: signFormToken(app.keyring, site.id),
        consent: { ...consent, privacy: { ...consent.privacy, url: consentLinkInLayout(consent.privacy.url, site.default_locale) } },
        pagePath,
      },
      {
        values: sentValues(request.body),
        errors: Object.fromEntries(Object.entries(refusal.fields).map(([field, say]) => [field, say(words)])),
      },
    )
    const back = `${origin.prefix}${pageUrlPath(locale, pagePath, site.default_locale)}`
    const l = LABELS[locale]
    const main = html`<h1>${words.title}</h1>${refusal.general ? html`<p role="alert">${words[refusal.general]}</p>` : ''}${form}<p><a href="${back}">${l.back}</a></p>`
    return sendPage(
      reply,
      refusal.status,
      plainSitePage({
        lang: locale,
        title: `${words.title} – ${site.name}`,
        main,
        css: '.field-error{display:block;color:#a4001d;font-weight:600}',
      }),
    )
  }

  const handler = async (request: FastifyRequest<{ Body: ContactBody }>, reply: FastifyReply) => {
    const origin = siteOfRequest(request, live)
    if (!origin) throw new errors.notFound('No published site answers here')
    if (request.validationError) {
      return refuse(request, reply, origin, problemsOf(request.body, request.validationError.validation ?? []), request.validationError)
    }
    if (!sameOrigin(request, origin)) throw new errors.forbidden('The form must be sent from the site itself')
    const body = request.body
    const token = checkFormToken(app.keyring, body.token, origin.siteId)
    if (token === 'too_soon') {
      const problem = new errors.unprocessable('The form was sent too soon after the page was served; send it again')
      return refuse(request, reply, origin, { status: 422, fields: {}, general: 'tooSoon' }, problem)
    }
    if (token !== 'ok') {
      const problem = new errors.forbidden(
        token === 'expired'
          ? 'The form has expired; reload the page and send it again'
          : 'The form is not one of this site; reload the page and send it again',
      )
      return refuse(request, reply, origin, { status: 403, fields: {}, general: 'reload' }, problem)
    }
    const site = await findSiteById(app.db, origin.siteId)
    if (!site) throw new errors.notFound('No published site answers here')
    const locale = body.locale
    if (!isLocale(locale) || !site.locales.includes(locale)) {
      return refuse(
        request,
        reply,
        origin,
        { status: 400, fields: {}, general: 'reload' },
        new errors.validationFailed('locale: the site does not speak this language'),
      )
    }
    if (body.consent !== 'yes') {
      return refuse(
        request,
        reply,
        origin,
        { status: 400, fields: { consent: (words) => words.consent } },
        new errors.validationFailed('consent: please agree to the consent text to send the form'),
      )
    }
    const consent = leadConsentFor(site.settings ?? {}, locale)
    if (body.consent_version !== consent.version || body.consent_digest !== consent.digest) {
      const problem = new errors.conflict('The consent text has changed since the page was loaded; reload the page and send the form again')
      return refuse(request, reply, origin, { status: 409, fields: {}, general: 'consentChanged' }, problem)
    }
    if (body[HONEYPOT]) {
      // Only a script fills in the hidden field: it hears what a person would, and nothing is kept.
      request.log.info({ site: site.id }, 'contact form: honeypot filled, message dropped')
      return thanks(reply, origin, site, locale, body.page)
    }
    const recent = await contactMessagesSince(app.db, site.id, new Date(Date.now() - 3600_000))
    if (recent.count >= MESSAGES_PER_HOUR) {
      const retryAfter = Math.max(1, Math.ceil((recent.oldest!.getTime() + 3600_000 - Date.now()) / 1000))
      reply.header('retry-after', String(retryAfter))
      const problem = withHeaders(new errors.rateLimited('This site has received too many messages in the last hour'), {
        'retry-after': String(retryAfter),
      })
      return refuse(request, reply, origin, { status: 429, fields: {}, general: 'busy' }, problem)
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
    return thanks(reply, origin, site, locale, body.page)
  }

  function thanks(reply: FastifyReply, origin: SiteOrigin, site: { name: string; default_locale: Locale }, locale: Locale, page: string) {
    const l = LABELS[locale]
    const back = `${origin.prefix}${pageUrlPath(locale, page, site.default_locale)}`
    const main = html`<h1>${l.thanksTitle}</h1><p>${l.thanksText}</p><p><a href="${back}">${l.back}</a></p>`
    return sendPage(reply, 200, plainSitePage({ lang: locale, title: `${l.thanksTitle} – ${site.name}`, main }))
  }
  const route = {
    config: { operation: 'sites.contact_form', ...routeLimit(app.config, 'sites.contact_form') },
    schema: { hide: true, body: ContactBody },
    // The handler says what was wrong next to the visitor's fields (or answers the problem as before).
    attachValidation: true,
  }
  app.post('/_wps/forms/contact', route, handler)
  app.post('/s/:siteId/_wps/forms/contact', route, handler)
}
