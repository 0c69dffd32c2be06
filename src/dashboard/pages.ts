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
import { html, sendPage, type SafeHtml } from '../infra/html.ts'
import { recordRefusal } from './audited-change.ts'
import { neededRole } from './permissions.ts'
import { plainPlanWords, roleRefusal } from './refusal-words.ts'
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

/** Success lines shown after a POST-redirect-GET, by code (never text taken from the URL). */
const NOTICES: Record<string, string> = {
  'build-queued': 'A build was queued.',
  'photo-uploaded': 'The photo was uploaded.',
  'photos-uploaded': 'The photos were uploaded.',
  'photo-saved': 'The photo’s description was saved.',
  'photo-deleted': 'The photo was deleted.',
  'rolled-back': 'The site now serves the chosen build.',
  'domain-added': 'The domain was added; publish its TXT record, then verify.',
  'verify-queued': 'The domain is being verified.',
  'domain-removed': 'The domain was removed.',
  taken: 'You have taken over the conversation.',
  replied: 'Your reply was posted.',
  resolved: 'The conversation was resolved.',
  'lead-deleted': 'The lead was deleted.',
  'token-revoked': 'The token was revoked.',
  'webhook-updated': 'The endpoint was updated.',
  'webhook-enabled': 'The endpoint was enabled.',
  'webhook-disabled': 'The endpoint was disabled.',
  'webhook-deleted': 'The endpoint was deleted.',
  'test-sent': 'A test event was queued.',
  replayed: 'The delivery was queued again.',
  'window-replayed': 'The events of that window were queued again.',
  invited: 'The invitation was mailed. The link works once, for 7 days.',
  'invitation-withdrawn': 'The invitation was withdrawn; its link no longer works.',
  'role-changed': 'The role was changed.',
  'member-removed': 'The member was removed, and their API tokens of this account revoked.',
  switched: 'You are now working in the account you chose.',
  left: 'You left the account.',
  joined: 'You joined the account. Welcome!',
  'weekly-on': "The week's visitors will come by mail every Monday.",
  'weekly-off': 'The weekly mail is stopped.',
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
      const notice = flash?.notice ?? (done ? NOTICES[done] : undefined)
      const { email, role, accountId } = this.request.person
      const t = this.request.t
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
    const failure = pageFailure(t, error, classified, inPlainWords(request, classified))
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

  // The one script of the dashboard: a copy button for a secret shown once (the page works without it).
  const copyScript =
    "(function(){var b=document.getElementById('copy'),s=document.getElementById('secret');if(!b||!s||!navigator.clipboard)return;b.hidden=false;b.onclick=function(){navigator.clipboard.writeText(s.textContent).then(function(){b.textContent='Copied'})}})()"
  app.get('/copy.js', { config: { operation: 'dashboard.script' }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'private, max-age=300').type('text/javascript; charset=utf-8').send(copyScript),
  )

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
  await app.register(withRole('viewer', [tokensSection]))
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
function inPlainWords(request: FastifyRequest, refusal: { code: string; detail: string }): string | undefined {
  if (refusal.code === 'role_required' && request.person) return roleRefusal(request.person.role, neededRole(request))
  if (refusal.code === 'plan_limit' || refusal.code === 'plan_required') return plainPlanWords(refusal.detail)
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
