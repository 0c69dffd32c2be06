import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { listSiteBuilds, queueBuild, rollbackTo, type Build } from '../../../domain/sites/builds.ts'
import { memberEmails } from '../../../domain/accounts/members.ts'
import { listSitePages } from '../../../domain/sites/pages.ts'
import type { SiteRecord } from '../../../domain/sites/sites.ts'
import { html, type SafeHtml } from '../../../infra/html.ts'
import { auditedChange } from '../../audited-change.ts'
import { actionForm, dataTable } from '../../layout.ts'
import type { Translator } from '../../../domain/i18n/translator.ts'
import { addressesOf, crumbs, localeName, ownSite, pageAddress, shownDomain, SiteParams, viewOnly } from './context.ts'
import { refusalOf, refused } from './form.ts'
import { noticeOf } from './notices.ts'
import { mayChange } from '../../permissions.ts'

const Form = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) }

const srOnly = (words: SafeHtml) => html`<span class="sr-only">${words}</span>`

/** A build's status in words (the page and its progress script, as plain text). */
function buildStatus(t: Translator, build: Build): string {
  switch (build.status) {
    case 'queued':
      return t.t('editor.site.build.queued')
    case 'running':
      return t.t('editor.site.build.running')
    case 'succeeded':
      return build.pages === null ? t.t('editor.site.build.done') : t.t('editor.site.build.donePages', { pages: build.pages })
    case 'failed':
      return build.error ? `${t.t('editor.site.build.failed')}: ${build.error}` : t.t('editor.site.build.failed')
  }
}

/** Whether a build is still to come: queued or running (the page then follows it). */
const inProgress = (build: Build | undefined) => build?.status === 'queued' || build?.status === 'running'

/** Who asked for a build: the member's address, an API token or an agent, a former member, or nobody (the platform). */
function requester(t: Translator, build: Build, emails: ReadonlyMap<string, string>): string {
  if (build.user_id) return emails.get(build.user_id) ?? t.t('editor.site.by.former')
  if (build.token_id) return t.t('editor.site.by.token')
  if (build.client_id) return t.t('editor.site.by.agent')
  return t.t('editor.site.by.platform')
}

async function render(
  app: FastifyInstance,
  reply: FastifyReply,
  site: SiteRecord,
  flash: { notice?: string; problem?: SafeHtml; publishProblem?: SafeHtml } = {},
) {
  const [builds, pages] = await Promise.all([
    listSiteBuilds(app.db, site.id, { limit: 20, offset: 0 }),
    listSitePages(app.db, site.id, { limit: 500, offset: 0 }),
  ])
  // Only the people the listed builds name are read (each address is unsealed to be shown).
  const askers = builds.items.flatMap((b) => (b.user_id ? [b.user_id] : []))
  const emails = await memberEmails(app.db, app.keyring, reply.request.person.accountId, askers)
  const where = addressesOf(app, site)
  const csrf = reply.formToken()
  const latest = builds.items[0]
  const active = inProgress(latest)
  const published = site.live_build_id !== null
  const may = mayChange(reply.request.person)
  const { t } = reply.request
  const strong = (words: SafeHtml) => html`<strong>${words}</strong>`
  const body = html`${crumbs(t, [[site.name]])}
${may ? '' : viewOnly(t)}
${flash.problem ? html`<div class="error problems" role="alert"><h2>${t.t('editor.site.nothingPublished')}</h2><p>${flash.problem}</p></div>` : ''}
<section class="card" aria-labelledby="where-h"><h2 id="where-h">${t.t('editor.site.where')}</h2>
<p>${t.rich('editor.site.status', { status: site.status }, { strong })}</p>
<p>${t.t('editor.site.address')} ${published && site.status === 'live' ? html`<a href="${where.subdomainUrl}">${where.subdomain}</a>` : html`<strong>${where.subdomain}</strong> <span class="muted">${t.t('editor.site.addressLater')}</span>`}</p>
<p>${t.t('editor.site.ownDomain')} ${where.domainUrl ? html`<a href="${where.domainUrl}">${shownDomain(site.domain!)}</a>` : html`${t.t('editor.site.noDomain')}`}</p>
<p class="actions">${latest?.status === 'succeeded' || published ? html`<a href="${where.preview}">${t.rich('editor.site.previewLatest', { name: site.name }, { hidden: srOnly })}</a>` : ''}
<a href="/s/${site.id}/_draft/">${t.rich('editor.site.previewDraft', { name: site.name }, { hidden: srOnly })}</a>
<a href="/app/sites/${site.id}/settings">${t.t('editor.site.settings')}</a> <a href="/app/sites/${site.id}/theme">${t.t('editor.site.look')}</a> <a href="/app/sites/${site.id}/navigation">${t.t('editor.site.menu')}</a> <a href="/app/sites/${site.id}/domains">${t.t('editor.site.domains')}</a> <a href="/app/sites/${site.id}/redirects">${t.t('editor.site.redirects')}</a> <a href="/app/sites/${site.id}/reports">${t.t('editor.site.reports')}</a> <a href="/app/sites/${site.id}/stats">${t.t('nav.statistics')}</a></p>
</section>
<section aria-labelledby="pages-h"><h2 id="pages-h">${t.t('editor.site.pages')}</h2>
${pages.items.length === 0 ? html`<p>${t.t('editor.site.noPages')}</p>` : ''}
${site.locales.map((locale) => {
  const inLocale = pages.items.filter((p) => p.locale === locale)
  if (inLocale.length === 0)
    return site.locales.length > 1 && pages.items.length > 0
      ? html`<h3>${localeName(t, locale)}</h3><p>${t.t('editor.site.noPagesInLocale')}</p>`
      : ''
  return html`${site.locales.length > 1 ? html`<h3>${localeName(t, locale)}</h3>` : ''}<ul>${inLocale.map((p) => html`<li><a href="/app/pages/${p.id}">${p.title}</a> <code>${pageAddress(site, p)}</code></li>`)}</ul>`
})}
${may ? html`<p><a class="button" href="/app/sites/${site.id}/pages/new">${t.t('editor.newPage.title')}</a></p>` : ''}
</section>
<section aria-labelledby="builds-h"><h2 id="builds-h">${t.t('editor.publish')}</h2>
<p>${t.t('editor.site.publishNote')} ${t.t('editor.site.latest')} <strong id="build-status" role="status"${active ? html` data-status-url="/app/sites/${site.id}/build-status"` : ''}>${latest ? buildStatus(t, latest) : t.t('editor.site.never')}</strong>${latest?.finished_at ? html` <span class="muted">(${t.dateTime(latest.finished_at)})</span>` : ''}${active ? html` <a href="/app/sites/${site.id}" id="check-again">${t.t('editor.site.checkAgain')}</a><script src="/app/progress.js" defer></script>` : ''}</p>
${flash.publishProblem ? html`<p class="field-error" role="alert" id="publish-error"><span class="sr-only">${t.t('editor.form.errorPrefix')} </span>${flash.publishProblem}</p>` : ''}
${may ? actionForm(`/app/sites/${site.id}/rebuild`, csrf, t.t('editor.publishNow'), { inline: false }) : ''}
${
  builds.items.length === 0
    ? ''
    : html`<h3>${t.t('editor.site.earlier')}</h3><p class="hint">${t.t('editor.site.earlier.hint', { may: may ? 'yes' : 'no' })}</p>${dataTable(
        t.t('editor.site.builds'),
        [
          t.t('editor.site.col.requested'),
          t.t('editor.site.col.by'),
          t.t('sites.col.status'),
          t.t('editor.site.pages'),
          t.t('editor.site.col.finished'),
          t.t('editor.site.col.live'),
        ],
        builds.items.map((b) => [
          t.dateTime(b.created_at),
          requester(t, b, emails),
          buildStatus(t, b),
          b.pages ?? '–',
          b.finished_at ? t.dateTime(b.finished_at) : '–',
          site.live_build_id === b.id
            ? t.t('sites.status.live')
            : b.status === 'succeeded' && may
              ? actionForm(`/app/sites/${site.id}/rollback`, csrf, t.t('editor.site.rollback', { build: b.id }), {
                  kind: 'secondary',
                  fields: { build_id: b.id },
                })
              : '',
        ]),
      )}`
}
</section>`
  return reply.page(site.name, 'sites', body, flash.notice ? { notice: flash.notice } : {})
}

/**
 * A site's home in the editor: where it is seen (subdomain, own domain, preview), publishing with
 * the latest build's status, the builds with roll back, and its pages by language.
 */
export default async function siteScreen(app: FastifyInstance) {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>()
  routes.get(
    '/sites/:id',
    { config: { operation: 'dashboard.sites.get' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) =>
      render(app, reply, await ownSite(app, request.person.accountId, request.params.id, request.t), noticeOf(request)),
  )

  // The latest build's status for the page's progress script (scripts.ts): in words, and whether to ask again.
  routes.get(
    '/sites/:id/build-status',
    { config: { operation: 'dashboard.sites.buildStatus' }, schema: { hide: true, params: SiteParams } },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      const [latest] = (await listSiteBuilds(app.db, site.id, { limit: 1, offset: 0 })).items
      const { t } = request
      return reply.header('cache-control', 'no-store').send({
        status: latest?.status ?? null,
        active: inProgress(latest),
        text: latest ? buildStatus(t, latest) : t.t('editor.site.never'),
        next: t.t('editor.site.showBuilds'),
      })
    },
  )

  routes.post(
    '/sites/:id/rebuild',
    {
      config: { operation: 'dashboard.sites.rebuild' },
      schema: { hide: true, params: SiteParams, body: Type.Object(Form, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      // /v1 publishes an empty site (its clients may mean to); a person is told what it would show.
      if ((await listSitePages(app.db, site.id, { limit: 1, offset: 0 })).total === 0) {
        await refused(request, reply, 409)
        return render(app, reply, site, {
          publishProblem: request.t.rich(
            'editor.site.publishEmpty',
            {},
            { link: (words) => html`<a href="/app/sites/${site.id}/pages/new">${words}</a>` },
          ),
        })
      }
      try {
        await auditedChange(request, (trx) => queueBuild(trx, site.id))
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site', request.t)
        if (!refusal?.problem) throw error
        await refused(request, reply, refusal.status)
        return render(app, reply, site, { problem: refusal.problem })
      }
      return reply.redirect(`/app/sites/${site.id}?done=build-queued`, 303)
    },
  )

  routes.post(
    '/sites/:id/rollback',
    {
      config: { operation: 'dashboard.sites.rollback' },
      schema: {
        hide: true,
        params: SiteParams,
        body: Type.Object({ ...Form, build_id: Type.String({ pattern: '^bld_[A-Za-z0-9_-]{1,64}$' }) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const site = await ownSite(app, request.person.accountId, request.params.id, request.t)
      try {
        await auditedChange(request, (trx) => rollbackTo(trx, site.id, request.body.build_id))
      } catch (error) {
        const refusal = refusalOf(error, {}, 'site', request.t)
        if (!refusal?.problem) throw error
        await refused(request, reply, refusal.status)
        return render(app, reply, site, { problem: refusal.problem })
      }
      return reply.redirect(`/app/sites/${site.id}?done=rolled-back`, 303)
    },
  )
}
