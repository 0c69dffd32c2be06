import { dashboardScripts } from './scripts.ts'
import yourDataSection, { SUSPENDED_ROUTES, suspendedPage } from './sections/your-data.ts'
import { pendingDeletion } from '../domain/your-data/deletion.ts'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Role } from '../domain/accounts/members.ts'
import { webCookieNames } from '../domain/accounts/web-sessions.ts'
import { classify, logFailure } from '../errors.ts'
import type { SessionPrincipal } from '../frame/index.ts'
import { pageFailure } from '../domain/i18n/page-failure.ts'
import { requestTranslator } from '../domain/i18n/request.ts'
import type { MessageKey } from '../domain/i18n/translator.ts'
import { html, sendPage, type SafeHtml } from '../infra/html.ts'
import { recordRefusal } from './audited-change.ts'
import { neededRole } from './permissions.ts'
import { planRefusal, roleRefusal } from './refusal-words.ts'
import { layout, type Section } from './layout.ts'
import accountsSection from './sections/accounts.ts'
import auditLogSection from './sections/audit-log.ts'
import billingSection from './sections/billing.ts'
import membersSection from './sections/members.ts'
import conversationsSection from './sections/conversations.ts'
import leadsSection from './sections/leads.ts'
import overviewSection from './sections/overview.ts'
import reportsSection from './sections/reports.ts'
import sitesSection from './sections/sites.ts'
import mediaSection from './sections/media.ts'
import statsSection from './sections/stats.ts'
import tokensSection from './sections/tokens.ts'
import webhooksSection from './sections/webhooks.ts'
import notificationsSection from './sections/notifications.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person on /app pages. */
    person: SessionPrincipal
  }
  interface FastifyReply {
    page(title: string, section: Section, body: SafeHtml, flash?: { notice?: string; error?: string }): Promise<FastifyReply>
    /** The CSRF token of this page's forms: one per response, so every form and the cookie agree. */
    formToken(): string
  }
}

/** Success lines shown after a POST-redirect-GET, by code (never text taken from the URL), in the page's language. */
const NOTICES: Record<string, MessageKey> = {
  'build-queued': 'notice.build-queued',
  'photo-uploaded': 'notice.photo-uploaded',
  'photos-uploaded': 'notice.photos-uploaded',
  'photo-saved': 'notice.photo-saved',
  'photo-deleted': 'notice.photo-deleted',
  'rolled-back': 'notice.rolled-back',
  'domain-added': 'notice.domain-added',
  'verify-queued': 'notice.verify-queued',
  'domain-removed': 'notice.domain-removed',
  taken: 'notice.taken',
  replied: 'notice.replied',
  resolved: 'notice.resolved',
  'lead-deleted': 'notice.lead-deleted',
  'token-revoked': 'notice.token-revoked',
  'webhook-updated': 'notice.webhook-updated',
  'webhook-enabled': 'notice.webhook-enabled',
  'webhook-disabled': 'notice.webhook-disabled',
  'webhook-deleted': 'notice.webhook-deleted',
  'test-sent': 'notice.test-sent',
  replayed: 'notice.replayed',
  'window-replayed': 'notice.window-replayed',
  invited: 'notice.invited',
  'invitation-withdrawn': 'notice.invitation-withdrawn',
  'role-changed': 'notice.role-changed',
  'member-removed': 'notice.member-removed',
  switched: 'notice.switched',
  left: 'notice.left',
  joined: 'notice.joined',
  'weekly-on': 'notice.weekly-on',
  'weekly-off': 'notice.weekly-off',
}

/**
 * The dashboard at /app (DESIGN.md 11): server-rendered pages behind the passwordless sign-in,
 * plain forms with CSRF tokens, every change through the same repositories and audit log as /v1.
 */
export default async function dashboardPages(app: FastifyInstance) {
  // The sign-in pages' session and CSRF secret: one per browser, so the header's sign-out form can
  // post straight to POST /signout, and a dashboard form works in any tab of the same browser.
  const { csrf: csrfCookie, secure } = webCookieNames(app.config.BASE_URL)

  await app.register(formbody, { bodyLimit: 65_536 })
  await app.register(cookie)
  await app.register(csrf, { cookieKey: csrfCookie, cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure } })

  // Every form of the scope carries its CSRF token: one check for every POST, none to forget on a route.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done()
    app.csrfProtection(request, reply, done)
  })

  app.decorateRequest('person', null as never)
  app.decorateRequest('t', null as never)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const person = await app.frame.session(request)
    if (!person) {
      const returnTo = request.method === 'GET' ? request.url : '/app'
      return reply.redirect(`/signin?return_to=${encodeURIComponent(returnTo)}`, 303)
    }
    request.person = person
    request.t = requestTranslator(request, person.language)
    // The member's role, in the account chosen in this browser: reading is every member's, a
    // change an editor's; a route or section that needs more or less says so in `config.role`.
    app.frame.authorize(person, { role: neededRole(request) })
    // An account waiting to be erased shows only the way back (DESIGN.md 19).
    if (!SUSPENDED_ROUTES.has(request.routeOptions.url ?? '')) {
      const pending = await pendingDeletion(app.db, person.accountId)
      if (pending) return suspendedPage(request, reply, pending)
    }
  })
  // generateCsrf makes a new secret (and cookie) on every call while the browser has none yet.
  const formTokens = new WeakMap<FastifyReply, string>()
  app.decorateReply('formToken', function formToken(this: FastifyReply) {
    let token = formTokens.get(this)
    if (!token) formTokens.set(this, (token = this.generateCsrf()))
    return token
  })
  app.decorateReply(
    'page',
    async function page(this: FastifyReply, title: string, section: Section, body: SafeHtml, flash?: { notice?: string; error?: string }) {
      const done = (this.request.query as { done?: string } | undefined)?.done
      const t = this.request.t
      const key = done && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined
      const notice = flash?.notice ?? (key ? t.t(key) : undefined)
      const { email, role, accountId } = this.request.person
      const banner = (await paymentOverdue(app, accountId))
        ? html`<p class="error" role="alert">${t.rich('layout.paymentOverdue', { owner: role === 'owner' ? 'yes' : 'no' }, { link: (words) => html`<a href="/app/billing">${words}</a>` })}</p>`
        : undefined
      const flashed = { ...flash, ...(notice ? { notice } : {}) }
      const returnTo = this.request.method === 'GET' ? this.request.url : '/app'
      const viewer = { email, role }
      return sendPage(
        this,
        this.statusCode,
        layout({ t, title, section, viewer, csrf: this.formToken(), returnTo, body, flash: flashed, banner }),
      )
    },
  )
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const classified = classify(error)
    logFailure(request, error, classified)
    const t = (request.t ??= requestTranslator(request, request.person?.language))
    const failure = pageFailure(t, error, classified, inPlainWords(request, classified, error))
    reply.code(failure.status)
    if (request.person && request.method === 'POST') await recordRefusal(request, failure.status)
    if (!request.person) return reply.type('text/plain; charset=utf-8').send(failure.message)
    return reply.page(failure.title, 'overview', html`<p><a href="/app">${t.t('layout.back')}</a></p>`, { error: failure.message })
  })
  app.setNotFoundHandler(async (request, reply) => {
    reply.code(404)
    const t = (request.t ??= requestTranslator(request, request.person?.language))
    const back = t.rich('layout.nothingHere', {}, { link: (words) => html`<a href="/app">${words}</a>` })
    return reply.page(t.t('error.title.404'), 'overview', html`<p>${back}</p>`)
  })

  dashboardScripts(app)

  for (const section of [
    overviewSection,
    sitesSection,
    mediaSection,
    reportsSection,
    statsSection,
    conversationsSection,
    leadsSection,
    accountsSection,
    billingSection,
  ])
    await app.register(section)
  // Every member manages their own API tokens (an owner everyone's), a viewer included.
  await app.register(withRole('viewer', [tokensSection, notificationsSection]))
  await app.register(withRole('owner', [webhooksSection, membersSection, auditLogSection, yourDataSection]))
}

/** Whether the account's last payment failed and Stripe is still retrying it (the banner on every page). */
async function paymentOverdue(app: FastifyInstance, accountId: string): Promise<boolean> {
  const row = await app.db
    .selectFrom('account_billing')
    .select('status')
    .where('account_id', '=', accountId)
    .where('manual', '=', false)
    .executeTakeFirst()
  return row?.status === 'past_due'
}

/** A refusal as the dashboard words it: a role or plan refusal without the API message's ids and jargon. */
function inPlainWords(request: FastifyRequest, refusal: { code: string; detail: string }, error: unknown): string | undefined {
  if (refusal.code === 'role_required' && request.person) return roleRefusal(request.t, request.person.role, neededRole(request))
  if (refusal.code === 'plan_limit' || refusal.code === 'plan_required') return planRefusal(request.t, refusal, error)
  return undefined
}

/** Sections whose routes need `role` unless a route says otherwise. */
function withRole(role: Role, sections: FastifyPluginAsync[]): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, role: route.config?.role ?? role } as typeof route.config
    })
    for (const section of sections) await app.register(section)
  }
}
